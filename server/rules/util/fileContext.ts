// Whole-file facts that findings anywhere in the file depend on. A windowed lint (server/lint/
// incremental.ts) keeps a rule's findings outside its window only while the parts of this key that the
// rule read (see dependencies.ts) are unchanged.
import { checksElsewhere, usesTorch } from "../missing-launch-check";
import { fileScopeShared } from "../shared-memory-reduction";
import { optedIn } from "../shared-memory-limit";
import { hasBf16Guard } from "./archGuard";
import { declEnvKey } from "./declEnv";
import type { Dependency } from "./dependencies";
import type { FileIndex } from "./fileIndex";

/** The shared values (FileIndex.shared keys) the key is made of: a run over the same text may take them over. */
export const CONTEXT_VALUES: readonly string[] = [
  "hasBf16Guard",
  "optedIn",
  "usesTorch",
  "declEnvKey",
  "fileScopeShared",
  "checksElsewhere",
];

/** The key's parts, in order, as the dependencies the rules record when they read them. */
const PARTS: readonly Dependency[] = [
  "context:guard",
  "context:optIn",
  "context:torch",
  "context:decls",
  "context:externShared",
  "context:callerChecks",
];

export function fileContextKey(idx: FileIndex): string {
  return [
    // bf16-unsupported-arch: a cuda_bf16.h include is fine once anything in the file is guarded
    hasBf16Guard(idx),
    // shared-memory-limit: launches over 48 KB need the opt-in somewhere in the file
    optedIn(idx),
    // missing-launch-check: the fix inserts the PyTorch macro only in PyTorch extensions
    usesTorch(idx),
    // launch-check macros and half-type aliases (declEnv.ts): the file's macro, include and alias lines
    declEnvKey(idx),
    // shared-memory-reduction: `extern __shared__` arrays declared outside any function are shared
    [...fileScopeShared(idx)].sort().join(" "),
    // missing-launch-check: a library file naming no launch check is taken to check in its caller
    checksElsewhere(idx),
  ].join(",");
}

/** The parts that differ between two keys (all of them when the keys do not have the same shape). */
export function changedContext(a: string, b: string): Dependency[] {
  const x = a.split(",");
  const y = b.split(",");
  if (x.length !== PARTS.length || y.length !== PARTS.length) return [...PARTS];
  return PARTS.filter((_, i) => x[i] !== y[i]);
}
