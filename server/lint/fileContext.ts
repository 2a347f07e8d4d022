// Whole-file facts that findings anywhere in the file depend on. A windowed lint (server/lint/
// incremental.ts) keeps a rule's findings outside its window only while the parts of this key that the
// rule read (see dependencies.ts) are unchanged.
import { checksElsewhere } from "../analysis/launches/checksElsewhere";
import { torchApi } from "../analysis/source/pytorchExtension";
import { fileScopeShared } from "../analysis/sharedMemory/fileScope";
import { OPT_IN_ATTRIBUTE, optedIn } from "../analysis/sharedMemory/optIn";
import { hasBf16Guard } from "../analysis/preprocessor/archGuard";
import { rocmOnly } from "../analysis/preprocessor/rocmOnly";
import { declEnvKey } from "../analysis/types/declEnv";
import { BUILTIN_CHECKS } from "../analysis/launches/launchChecks";
import { RESET_CALLS } from "../analysis/launches/errorResets";
import type { Dependency } from "./dependencies";
import type { FileIndex } from "../analysis/source/fileIndex";

/** The shared values (FileIndex.shared keys) the key is made of: a run over the same text may take them over. */
export const CONTEXT_VALUES: readonly string[] = [
  "hasBf16Guard",
  "optedIn",
  "usesTorch",
  "declEnvKey",
  "fileScopeShared",
  "checksElsewhere",
  "rocmOnly",
];

/** The key's parts, in order, as the dependencies the rules record when they read them. */
const PARTS: readonly Dependency[] = [
  "context:guard",
  "context:optIn",
  "context:torch",
  "context:decls",
  "context:externShared",
  "context:callerChecks",
  "context:rocm",
];

export function fileContextKey(idx: FileIndex): string {
  return [
    // bf16-unsupported-arch: a cuda_bf16.h include is fine once anything in the file is guarded
    hasBf16Guard(idx),
    // shared-memory-limit: launches over 48 KB need the opt-in somewhere in the file
    optedIn(idx),
    // missing-launch-check: the PyTorch macro (c10's or the stable ABI's) only in PyTorch extensions
    torchApi(idx) ?? "none",
    // launch-check macros and half-type aliases (declEnv.ts): the file's macro, include and alias lines
    declEnvKey(idx),
    // shared-memory-reduction: `extern __shared__` arrays declared outside any function are shared
    [...fileScopeShared(idx)].sort().join(" "),
    // missing-launch-check: a library file naming no launch check is taken to check in its caller
    checksElsewhere(idx),
    // deprecated-shuffle: a file including a header only ROCm ships is HIP code
    rocmOnly(idx),
  ].join(",");
}

/** The parts that differ between two keys (all of them when the keys do not have the same shape). */
export function changedContext(a: string, b: string): Dependency[] {
  const x = a.split(",");
  const y = b.split(",");
  if (x.length !== PARTS.length || y.length !== PARTS.length) return [...PARTS];
  return PARTS.filter((_, i) => x[i] !== y[i]);
}

/*
 * Reusing the parts after an edit. Each part is the outcome of regexes run over the raw text (and, for
 * two, of the tree at their matches). For a regex R scanned over the text: when no match of R at any
 * position reads a character within one of the change in either text, the scans of both texts find the
 * same matches (a match reading only unchanged text matches in both; the first difference between the
 * scans would be such a match). Every regex here matches text with no `;`, `{` or `}` in it (bar a
 * final `;`), or lies on one line with its continuations: a match reading near the change lies whole
 * within `around` of it, and holds one of its part's words there. A part none of whose words is there,
 * in the old and the new text, is the same. Parts read from the tree at a match also need the match to
 * lie outside the relint's window, where the tree is the last run's.
 */

/** Per part, in PARTS order: words every match of its regexes holds; `inWindow`: also looked for in the window. */
const ANCHORS: readonly { words: readonly string[]; inWindow?: readonly string[] }[] = [
  // archGuard.ts: NV_IF_TARGET(NV_PROVIDES_SM_…), if constexpr (__CUDA_ARCH__ …), and the `#if` lines
  // naming __CUDA_ARCH__ or holding a block comment, whose condition is read from the tree
  {
    words: ["NV_IF_", "NV_PROVIDES_SM_", "constexpr", "__CUDA_ARCH__", "/*", "*/"],
    inWindow: ["__CUDA_ARCH__", "/*"],
  },
  { words: [OPT_IN_ATTRIBUTE] },
  // pytorchExtension.ts: C10_CUDA_KERNEL_LAUNCH_CHECK, `#include <torch/…>` (and ATen, c10), the stable
  // ABI's STD_TORCH_CHECK, STD_CUDA_KERNEL_LAUNCH_CHECK and torch::stable
  {
    words: [
      "C10_CUDA_KERNEL_LAUNCH_CHECK",
      "include",
      "STD_TORCH_CHECK",
      "STD_CUDA_KERNEL_LAUNCH_CHECK",
      "stable",
    ],
  },
  // declEnv.ts: `#define`/`#include` lines, `typedef …;` and `using …;`, aligned structs; an alias line in
  // the window may have changed block (aliasScopes.ts: only file-level aliases are the file's)
  { words: ["#", "typedef", "using", "align"], inWindow: ["typedef", "using"] },
  // shared-memory-reduction.ts: `extern __shared__ … name[];`, outside device functions (from the tree)
  { words: ["extern"], inWindow: ["extern"] },
  // missing-launch-check.ts: a built-in check's name or `int main(`; a reset's function is read from the
  // tree (checksElsewhere.ts: does the function around a discarded cudaGetLastError() launch?)
  { words: [...BUILTIN_CHECKS, "main"], inWindow: RESET_CALLS },
  // rocmOnly.ts: the directive lines (an `#include`, and the `#if`s around it), which a block comment
  // can blank
  { words: ["#", "/*", "*/"] },
];

/** How far `around` looks for the statement's ends before giving up (then every part is made again). */
const REACH = 8192;

/**
 * [start, end) of the text near [a, b), the changed part of `text`: its lines widened by one character
 * each side, with their backslash continuations, out to the nearest `;`, `{` or `}` on either side.
 */
function around(text: string, a: number, b: number): [number, number] | undefined {
  const p = Math.max(0, a - 2);
  let s = p === 0 ? 0 : text.lastIndexOf("\n", p - 1) + 1;
  while (s > 1 && (text[s - 2] === "\\" || (text[s - 2] === "\r" && text[s - 3] === "\\")))
    s = text.lastIndexOf("\n", s - 2) + 1;
  let e = text.indexOf("\n", Math.min(text.length, b + 2));
  while (e >= 0 && (text[e - 1] === "\\" || (text[e - 1] === "\r" && text[e - 2] === "\\")))
    e = text.indexOf("\n", e + 1);
  e = e < 0 ? text.length : e + 1;
  const stop = (c: string): boolean => c === ";" || c === "{" || c === "}";
  const lo = Math.max(0, s - REACH);
  while (s > lo && !stop(text[s - 1]!)) s--;
  const hi = Math.min(text.length, e + REACH);
  while (e < hi && !stop(text[e]!)) e++;
  if ((s === lo && s > 0) || (e === hi && e < text.length)) return undefined;
  return [Math.max(0, s - 1), Math.min(text.length, e + 1)];
}

/** The first offset in [from, to) where `a` and `b` differ, looking forward (to: where both still agree). */
function commonPrefix(a: string, b: string, from: number, to: number): number {
  let i = from;
  while (i < to && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** The change between `old` and `now`, which agree outside [from, oldTo) and [from, newTo). */
export function changedSpan(
  old: string,
  now: string,
  from: number,
  oldTo: number,
): { start: number; oldEnd: number; newEnd: number } {
  const delta = now.length - old.length;
  const start = commonPrefix(old, now, from, Math.min(oldTo, oldTo + delta));
  let oldEnd = oldTo;
  while (
    oldEnd > start &&
    oldEnd + delta > start &&
    old.charCodeAt(oldEnd - 1) === now.charCodeAt(oldEnd - 1 + delta)
  )
    oldEnd--;
  return { start, oldEnd, newEnd: oldEnd + delta };
}

/** The part's value as its key part reads (fileContextKey), for FileIndex.shared. */
function parsePart(i: number, part: string): unknown {
  if (CONTEXT_VALUES[i] === "declEnvKey") return part;
  if (CONTEXT_VALUES[i] === "fileScopeShared") return new Set(part === "" ? [] : part.split(" "));
  if (CONTEXT_VALUES[i] === "usesTorch") return part === "none" ? undefined : part;
  return part === "true";
}

/**
 * Before a relint: gives `fresh` (an index over the new text) the parts of `prevKey`, the key of `old`,
 * that the edit cannot have changed, so that neither the key nor the rules make them again. `window`
 * and `oldWindowEnd`: the relint's window (the texts agree outside it).
 */
export function reuseContext(
  fresh: FileIndex,
  old: string,
  prevKey: string,
  window: { start: number; end: number },
  oldWindowEnd: number,
): void {
  const parts = prevKey.split(",");
  if (parts.length !== PARTS.length) return;
  const now = fresh.text;
  const c = changedSpan(old, now, window.start, oldWindowEnd);
  const near = [around(old, c.start, c.oldEnd), around(now, c.start, c.newEnd)];
  if (!near[0] || !near[1]) return;
  const texts = [old.slice(...near[0]), now.slice(...near[1])];
  const windows = [old.slice(window.start, oldWindowEnd), now.slice(window.start, window.end)];
  ANCHORS.forEach((anchor, i) => {
    if (anchor.words.some((w) => texts.some((t) => t.includes(w)))) return;
    if (anchor.inWindow?.some((w) => windows.some((t) => t.includes(w)))) return;
    fresh.shared(CONTEXT_VALUES[i]!, () => parsePart(i, parts[i]!));
  });
}
