// The severity policy (README, "Severity policy"): a finding's severity follows from what it rests on, so
// an error always means the code will not build or will fail, and a warning is a judgement.
import type { Severity } from "./rule";

/** What a finding rests on. */
export type Basis =
  /** nvcc or ptxas rejects the code for the build's targets and flags. */
  | "does-not-compile"
  /** Proven to fail, hang or race whenever it runs (a launch no GPU accepts). */
  | "fails-at-run-time"
  /** A pattern that is usually a bug or slow code, judged from the file alone. */
  | "heuristic"
  /** Depends on what the file does not say: run-time sizes, the build, other files. */
  | "needs-context";

export const SEVERITY_OF: Readonly<Record<Basis, Severity>> = {
  "does-not-compile": "error",
  "fails-at-run-time": "error",
  heuristic: "warning",
  "needs-context": "information",
};
