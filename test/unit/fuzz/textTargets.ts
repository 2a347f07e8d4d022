// Fuzz targets for the line-oriented text formats (nvidia-smi XML, ptxas -v, nvcc output, mangled
// names). Provenance is measured by ablation: a line a fact depends on is one whose digits, changed,
// change that fact.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { kernelDisplayName } from "../../../server/compiler/demangle";
import { parseNvccOutput } from "../../../server/compiler/nvccDiagnostics";
import { parsePtxasResources } from "../../../server/compiler/ptxasResources";
import { NvidiaSmiError, parseNvidiaSmiXml } from "../../../server/profile/nvidiaSmi";
import { read, REPO } from "./fixtureText";
import { lineTarget, type Facts, type Target } from "./target";

async function ablate(
  lines: string[],
  parse: (t: string) => Promise<Facts>,
  base: Facts,
): Promise<Map<string, Set<number>>> {
  const prov = new Map<string, Set<number>>([...base.keys()].map((k) => [k, new Set<number>()]));
  for (let i = 0; i < lines.length; i++) {
    // Its digits changed, and one space in front (nvcc's caret lines carry a column in their indent).
    for (const changed of [lines[i]!.replace(/\d/g, (d) => String((Number(d) + 1) % 10)), ` ${lines[i]!}`]) {
      const variant = [...lines];
      variant[i] = changed;
      let facts: Facts | undefined;
      try {
        facts = await parse(variant.join("\n"));
      } catch {
        facts = undefined; // a structural line: every fact depends on it
      }
      for (const [k, v] of base) if (!facts || facts.get(k) !== v) prov.get(k)!.add(i);
    }
  }
  return prov;
}

async function ablatedTarget(
  name: string,
  text: string,
  parse: (t: string) => Promise<Facts>,
  isClearError: (e: unknown) => boolean,
  group?: (key: string) => string,
): Promise<Target> {
  const lines = text.split("\n");
  const base = await parse(text);
  const provenance = await ablate(lines, parse, base);
  if (group) {
    // Fields of one record share their lines: a default (ptxas prints no "smem" for 0) has no digits to ablate.
    const byGroup = new Map<string, Set<number>>();
    for (const [k, ls] of provenance)
      byGroup.set(group(k), new Set([...(byGroup.get(group(k)) ?? []), ...ls]));
    for (const k of provenance.keys()) provenance.set(k, byGroup.get(group(k))!);
  }
  return lineTarget({ name, lines, base, provenance, parse, isClearError });
}

async function parseSmi(text: string): Promise<Facts> {
  await Promise.resolve();
  const log = parseNvidiaSmiXml(text);
  const f: Facts = new Map();
  for (const d of log.devices)
    for (const [k, v] of Object.entries(d) as [string, unknown][])
      if (typeof v === "number" || v === null) f.set(`${d.pciBusId}|${k}`, v);
  return f;
}

export const smiTarget = (): Promise<Target> =>
  ablatedTarget(
    "nvidia-smi XML",
    read("test/fixtures/profile/h200-nvidia-smi-q.xml"),
    parseSmi,
    (e) => e instanceof NvidiaSmiError,
  );

async function parsePtxas(text: string): Promise<Facts> {
  await Promise.resolve();
  const f: Facts = new Map();
  for (const k of parsePtxasResources(text))
    for (const [field, v] of Object.entries(k)) {
      if (typeof v === "number") f.set(`${k.arch}|${k.symbol}|${field}`, v);
      else if (field === "constantBytes")
        for (const [bank, n] of Object.entries(v as Record<number, number>))
          f.set(`${k.arch}|${k.symbol}|cmem${bank}`, n);
    }
  return f;
}

export const ptxasTarget = (file: string): Promise<Target> =>
  ablatedTarget(
    `ptxas -v (${file})`,
    read(file),
    parsePtxas,
    () => false,
    (k) => k.split("|").slice(0, 2).join("|"),
  );

async function parseNvcc(text: string): Promise<Facts> {
  await Promise.resolve();
  const f: Facts = new Map();
  const seen = new Map<string, number>();
  for (const d of parseNvccOutput(text)) {
    const k = `${d.file}|${d.severity}|${d.message}|${d.symbol}`;
    const n = seen.get(k) ?? 0;
    seen.set(k, n + 1);
    f.set(`${k}#${n}|line`, d.line ?? null);
    f.set(`${k}#${n}|column`, d.column ?? null);
    d.related.forEach((r, j) => f.set(`${k}#${n}|related${j}|${r.file}`, r.line));
  }
  return f;
}

export const nvccTarget = (file: string): Promise<Target> =>
  ablatedTarget(`nvcc output (${file})`, read(file), parseNvcc, () => false);

async function parseSymbols(text: string): Promise<Facts> {
  await Promise.resolve();
  const f: Facts = new Map();
  for (const sym of text.split("\n")) if (sym) f.set(`sym|${sym}`, kernelDisplayName(sym));
  return f;
}

/** The demangler on every mangled name in the compiler fixtures, one per line (crashes and hangs). */
export async function demangleTarget(): Promise<Target> {
  const syms = new Set<string>();
  for (const f of readdirSync(join(REPO, "test/fixtures/compiler"), { recursive: true, encoding: "utf8" }))
    if (/\.(txt|ptx)$/.test(f))
      for (const m of read(join("test/fixtures/compiler", f)).matchAll(/_Z[0-9A-Za-z_]+/g)) syms.add(m[0]);
  const lines = [...syms].sort();
  const provenance = new Map(lines.map((l, i) => [`sym|${l}`, new Set([i])]));
  return lineTarget({
    name: "demangler (fixture symbols)",
    lines,
    provenance,
    parse: parseSymbols,
    isClearError: () => false,
  });
}
