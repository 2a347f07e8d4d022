// The fuzz property: a mutated input either fails with the parser's own clear error, or every
// number read from a part of the input the mutation did not touch equals the unmutated parse
// (and every number the mutation set on purpose is read exactly). Never a silently wrong number.
import { prng } from "./mutate";
import type { FactValue, Target } from "./targets";

export interface Outcome {
  kind: "parsed" | "clear-error" | "violation";
  detail?: string;
}

const same = (a: FactValue, b: FactValue): boolean =>
  typeof a === "number" && typeof b === "number" ? a === b || Math.abs(a - b) <= 1e-9 * Math.abs(b) : a === b;

export async function runCase(t: Target, seed: number): Promise<Outcome> {
  const m = t.mutate(prng(seed));
  const tag = `${t.name}, seed ${seed} (${m.what})`;
  let facts;
  try {
    facts = await t.parse(m.text);
  } catch (e) {
    if (t.isClearError(e) && e instanceof Error && e.message.length > 0) return { kind: "clear-error" };
    return {
      kind: "violation",
      detail: `${tag}: crashed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`,
    };
  }
  for (const [k, want] of m.expect ?? []) {
    const got = facts.get(k);
    if (got === undefined) continue; // the value is gone: not a wrong number
    if (want === "nan" ? typeof got === "number" : !same(got, want))
      return {
        kind: "violation",
        detail: `${tag}: ${k} is ${String(got)}, expected ${want === "nan" ? "no number" : want}`,
      };
  }
  for (const [k, got] of facts) {
    if (m.expect?.has(k)) continue;
    const was = t.base.get(k);
    if (was === undefined || same(got, was) || got === null) continue;
    if (m.touched === "all") continue;
    const from = t.provenance.get(k) ?? new Set<number>();
    if ([...from].some((l) => (m.touched as Set<number>).has(l))) continue;
    return {
      kind: "violation",
      detail: `${tag}: ${k} is ${String(got)}, was ${String(was)}, though its lines ${[...from].join(",") || "(none)"} were not touched`,
    };
  }
  return { kind: "parsed" };
}
