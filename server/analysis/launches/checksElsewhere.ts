// Whether a file's launches are taken to be checked by its callers in other files: a library file (no
// `main`) that names no launch check at all. A whole-file fact, cheap to test on every relint
// (fileContext.ts); missing-launch-check falls back to it for launching functions called nowhere in the file.
import type { FileIndex } from "../source/fileIndex";
import { BUILTIN_CHECKS } from "./launchChecks";

/** A launch check named anywhere, or a program's entry point (no caller elsewhere checks for a program). */
const CHECKS_HERE = new RegExp(`\\b(${BUILTIN_CHECKS.join("|")})\\b|\\bint\\s+main\\s*\\(`);

/**
 * A library file that names no launch check at all is taken to check at a higher level: ggml checks
 * cudaGetLastError() after every op in its dispatcher, in another file. A whole-file fact, cheap to
 * test on every relint (fileContext.ts).
 */
export function checksElsewhere(idx: FileIndex): boolean {
  idx.reads("context:callerChecks");
  return idx.shared("checksElsewhere", () => !CHECKS_HERE.test(idx.text));
}
