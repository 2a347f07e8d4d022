// The CLI's exit codes, one meaning each across every command (README, "Exit codes";
// test/unit/faults/exitCodes.test.ts checks the commands against that table).
export const EXIT = {
  /** Done, and nothing to report: no error finding, every size passed, the report summarized. */
  ok: 0,
  /** Done, and it found something: an error-level finding, a failed size or output check, damaged input. */
  found: 1,
  /** Bad usage: an unknown option, a bad value, a missing file, a bad benchmark spec. */
  usage: 2,
  /** A tool this needs is missing or failed: nvcc, ncu, nsys, the NVIDIA driver, a GPU. */
  tool: 3,
  /** The code did not compile. */
  compile: 4,
  /** Not everything asked was checked: a file or folder could not be read, a parse ran past its time limit, a rule failed. */
  incomplete: 5,
  /** Cancelled (Ctrl+C). */
  cancelled: 130,
} as const;
