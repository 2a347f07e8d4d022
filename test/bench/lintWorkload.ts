// The 5,000-line workload the lint benchmarks run on (lint.ts, lintCalls.ts).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../integration/lspClient";

/** A kernel's name after `__global__ void` (and `__launch_bounds__(…)`, which is not the name). */
export const KERNEL_NAME = /(__global__ void\s+(?:__launch_bounds__\([^)]*\)\s*)?)(\w+)/g;

/**
 * The example files, repeated whole (kernels renamed) until there are at least `lines` lines: cutting a
 * file in half or renaming `__launch_bounds__` would leave syntax errors, which make tree-sitter's
 * incremental reparse re-run error recovery on every edit, unlike real code.
 */
export function workload(lines: number): string {
  const dir = join(REPO, "examples");
  const parts = readdirSync(dir)
    .filter((f) => /\.cuh?$/.test(f))
    .sort()
    .map((f) => readFileSync(join(dir, f), "utf8"));
  const out: string[] = [];
  let n = 0;
  for (let i = 0; n < lines; i++) {
    const part = parts[i % parts.length]!.replace(KERNEL_NAME, `$1$2_${i}`);
    out.push(part);
    n += part.split("\n").length;
  }
  return out.join("\n");
}
