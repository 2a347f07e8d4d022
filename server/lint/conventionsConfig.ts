// The `[conventions]` table of .cuda-kernel-dev.toml: project conventions are off unless opted into.
//
//   [conventions]
//   candle = true                  # kernels are compiled with -ptx and loaded by name: extern "C"
//   flashrt = true                 # kernel names follow FlashRT's suffixes (_fp16, _bf16out, _inplace, …)
//
//   [conventions.flashrt-suffixes] # added to (or replacing) the default table; false drops a suffix
//   fp4 = { meaning = "fp4 data", types = ["__nv_fp4_e2m1"] }
//   noweight = false
import { DEFAULT_SUFFIXES, mergeSuffixTable, type Conventions } from "../rules/conventions";

const KEYS = new Set(["candle", "flashrt", "flashrt-suffixes"]);

export function readConventions(value: unknown, file: string, problems: string[]): Conventions {
  const out: Conventions = {};
  if (value === undefined) return out;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    problems.push(`${file}: [conventions] must be a table`);
    return out;
  }
  const table = value as Record<string, unknown>;
  for (const key of Object.keys(table))
    if (!KEYS.has(key)) problems.push(`${file}: [conventions] unknown convention "${key}"`);
  for (const key of ["candle", "flashrt"] as const)
    if (table[key] !== undefined && typeof table[key] !== "boolean")
      problems.push(`${file}: [conventions] ${key} must be true or false`);
  if (table.candle === true) out.candle = true;
  const where = `${file} [conventions.flashrt-suffixes]`;
  const suffixes = mergeSuffixTable(DEFAULT_SUFFIXES, table["flashrt-suffixes"], where, problems);
  if (table.flashrt === true) out.flashrt = suffixes;
  return out;
}
