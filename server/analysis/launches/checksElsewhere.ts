// Whether a file's launches are taken to be checked by its callers in other files: a library file (no
// `main`) that names no launch check at all. A whole-file fact, cheap to test on every relint
// (fileContext.ts); missing-launch-check falls back to it for launching functions called nowhere in the file.
// A reset (a discarded `cudaGetLastError();`: errorResets.ts) in a function that launches nothing names no
// check: it clears the error after a failed API call. One in a launching function still counts (read after a
// launch as its check: checkFinder.ts). Cannot see: a launch through another function, for a reset's.
import type { FileIndex } from "../source/fileIndex";
import { codeOnly } from "../source/codeText";
import { BUILTIN_CHECKS } from "./launchChecks";
import { isReset } from "./errorResets";

/** A launch check named anywhere, or a program's entry point (no caller elsewhere checks for a program). */
const CHECKS_HERE = new RegExp(`\\b(${BUILTIN_CHECKS.join("|")})\\b|\\bint\\s+main\\s*\\(`, "g");

/**
 * A library file that names no launch check at all is taken to check at a higher level: ggml checks
 * cudaGetLastError() after every op in its dispatcher, in another file. A whole-file fact, cheap to
 * test on every relint (fileContext.ts).
 */
export function checksElsewhere(idx: FileIndex): boolean {
  idx.reads("context:callerChecks");
  return idx.shared("checksElsewhere", () => {
    for (const m of idx.text.matchAll(CHECKS_HERE)) if (!m[1] || !resetOnly(idx, m.index, m[1])) return false;
    return true;
  });
}

/** Whether the call of `name` at `at` is a reset in a function that launches nothing. */
function resetOnly(idx: FileIndex, at: number, name: string): boolean {
  const code = codeOnly(idx.text);
  if (!isReset(code, at, name)) return false;
  const fn = idx.functionSpanAt(at);
  return !fn || !code.slice(fn.start, fn.end).includes("<<<");
}
