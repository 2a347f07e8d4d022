// Project conventions a workspace opts into (`[conventions]` in .cuda-kernel-dev.toml): rules that hold
// for one project's build or naming scheme, not for CUDA code in general.
import { isRecord } from "../util/isRecord";
import defaultSuffixes from "./data/flashrt-suffixes.json";

/** What a name segment (`rms_norm_fp8_noweight_fp16` → fp8, noweight, fp16) claims about the parameters. */
export interface SuffixClaim {
  /** Said in the message: what the suffix means. */
  meaning: string;
  /** Some pointer parameter points to one of these types. */
  types?: string[];
  /** Some non-const pointer parameter (an output) points to one of these types. */
  outputTypes?: string[];
  /** No parameter has one of these names. */
  absentParams?: string[];
  /** Not both an input and an output pointer parameter by these names (`*` matches any text). */
  oneBuffer?: { inputs: string[]; outputs: string[] };
}

/** Suffix (lower case, without the underscore) → its claim. */
export type SuffixTable = Record<string, SuffixClaim>;

export interface Conventions {
  /** candle: kernels are compiled to PTX and loaded by name, so they need C linkage. */
  candle?: boolean;
  /** FlashRT's kernel-name suffixes, when the project follows them. */
  flashrt?: SuffixTable;
}

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");

/**
 * One suffix entry as written in the data file or the TOML (kebab-case keys); undefined, with a
 * problem pushed, when it is malformed.
 */
export function readSuffixClaim(value: unknown, where: string, problems: string[]): SuffixClaim | undefined {
  if (!isRecord(value)) {
    problems.push(`${where}: expected a table (or false to drop the suffix)`);
    return undefined;
  }
  const claim: SuffixClaim = { meaning: typeof value.meaning === "string" ? value.meaning : where };
  const lists: [keyof SuffixClaim & ("types" | "outputTypes" | "absentParams"), string][] = [
    ["types", "types"],
    ["outputTypes", "output-types"],
    ["absentParams", "absent-params"],
  ];
  for (const [field, key] of lists) {
    const v = value[key];
    if (isStrings(v)) claim[field] = v;
    else if (v !== undefined) problems.push(`${where}: ${key} must be an array of strings`);
  }
  const one = value["one-buffer"];
  if (isRecord(one) && isStrings(one.inputs) && isStrings(one.outputs))
    claim.oneBuffer = { inputs: one.inputs, outputs: one.outputs };
  else if (one !== undefined)
    problems.push(`${where}: one-buffer must be { inputs = [...], outputs = [...] }`);
  if (!claim.types && !claim.outputTypes && !claim.absentParams && !claim.oneBuffer) {
    problems.push(`${where}: says nothing to check (types, output-types, absent-params or one-buffer)`);
    return undefined;
  }
  return claim;
}

/** `overrides` (suffix → entry, or false to drop it) applied to `base`. */
export function mergeSuffixTable(
  base: SuffixTable,
  overrides: unknown,
  where: string,
  problems: string[],
): SuffixTable {
  const out: SuffixTable = { ...base };
  if (overrides === undefined) return out;
  if (!isRecord(overrides)) {
    problems.push(`${where}: expected a table of suffix = { … }`);
    return out;
  }
  for (const [suffix, entry] of Object.entries(overrides)) {
    const key = suffix.toLowerCase().replace(/^_/, "");
    if (entry === false) delete out[key];
    else {
      const claim = readSuffixClaim(entry, `${where}.${suffix}`, problems);
      if (claim) out[key] = claim;
    }
  }
  return out;
}

/** The table shipped in server/rules/data/flashrt-suffixes.json (FlashRT's kernel-naming cheatsheet). */
export const DEFAULT_SUFFIXES: SuffixTable = mergeSuffixTable(
  {},
  defaultSuffixes,
  "flashrt-suffixes.json",
  [],
);
