// The shape of a parser under fuzz (see targets.ts).
import { mutateLines, type Mutated, type Rng } from "./mutate";

export type FactValue = number | string | null;
export type Facts = Map<string, FactValue>;

export interface StructuredMutation extends Mutated {
  /** Exact expectations for facts the mutation changed on purpose: a number, or "not a number". */
  expect?: Map<string, number | "nan">;
}

export interface Target {
  name: string;
  lines: string[];
  base: Facts;
  provenance: Map<string, Set<number>>;
  parse(text: string): Promise<Facts>;
  /** Errors the parser is allowed to throw (a clear message); anything else is a crash. */
  isClearError(e: unknown): boolean;
  mutate(rng: Rng): StructuredMutation;
}

/** A target mutated line by line (formats without columns to swap): its facts are parsed from `lines`. */
export async function lineTarget(
  spec: Pick<Target, "name" | "lines" | "provenance" | "parse" | "isClearError"> & { base?: Facts },
): Promise<Target> {
  const { lines } = spec;
  const base = spec.base ?? (await spec.parse(lines.join("\n")));
  return { ...spec, base, mutate: (rng) => mutateLines(lines, rng) };
}
