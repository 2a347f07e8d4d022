// Which calls count as a launch check: the runtime's last-error calls, the wrappers everyone uses, the
// configured names, and every project macro or function whose body names one of these (through other
// macros and functions too). Judged from the definitions, not from a list of names: a project's
// `check_cuda_error(...)` counts because its body calls cudaGetLastError, not because of its name.
//
// A function that only synchronizes (cudaDeviceSynchronize/cudaStreamSynchronize) and checks what that
// returns does not count: a launch that fails to start (block too large, too much shared memory, no
// kernel image) leaves the synchronize returning cudaSuccess; only the last-error calls report it.
// A body whose only last-error calls discard the result (`cudaGetLastError();`, a reset) checks nothing
// (errorResets.ts). A function whose body launches a kernel is a launcher, not a check, even when it
// checks its own launch; so is one that calls a launcher, through any number of definitions of the same
// set (launchers.ts).
//
// A header's functions are found in its text (functionBodies.ts), the file's own in its tree (ownChecks.ts):
// bodies over 4,000 characters and functions defined by macros are not seen. In headers overloads share
// their name (any one that checks makes the name a check, any one that launches makes it none).
import type { FileIndex } from "../source/fileIndex";
import { definitionMap, launchingNames } from "./launchers";
import { ownLaunchChecks } from "./ownChecks";
import { withoutResets } from "./errorResets";

/** Calls that report a failed launch: the runtime's last-error calls and the wrappers everyone uses. */
export const BUILTIN_CHECKS: readonly string[] = [
  "cudaGetLastError",
  "cudaPeekAtLastError",
  "C10_CUDA_KERNEL_LAUNCH_CHECK",
  // PyTorch's stable ABI (torch/csrc/stable/macros.h, an `<…>` include): STD_CUDA_CHECK(cudaGetLastError())
  "STD_CUDA_KERNEL_LAUNCH_CHECK",
  // cuda-samples' helper_cuda.h (an `<…>` include there, so not read): __getLastCudaError calls cudaGetLastError
  "getLastCudaError",
];

/** The checks `seeds`, then every definition (macro or function) whose body names one, until none is added. */
export function launchChecks(
  definitions: Iterable<readonly [string, string]>,
  seeds: Iterable<string>,
): Set<string> {
  const checks = new Set([...seeds].filter((c) => /^[A-Za-z_]\w*$/.test(c)));
  // A body that launches a kernel, itself or through the definitions it calls, is a launcher's.
  const all = definitionMap(definitions);
  const launching = launchingNames(all);
  // A discarded `cudaGetLastError();` only resets the error state: it names no check (errorResets.ts).
  const defs = [...all]
    .filter(([name]) => !launching.has(name))
    .map(([n, body]) => [n, withoutResets(body)] as const);
  for (let changed = true; changed;) {
    changed = false;
    const re = new RegExp(`\\b(?:${[...checks].join("|")})\\b`);
    for (const [name, body] of defs)
      if (!checks.has(name) && re.test(body)) {
        checks.add(name);
        changed = true;
      }
  }
  return checks;
}

/**
 * `known` (the built-in, configured and header checks: declEnv.ts) and the file's own macros and
 * functions that check through them (ownChecks.ts). Read from where the names are written anywhere in the
 * file: a caller records that its findings depend on those uses (launchChecked.ts).
 */
export function fileLaunchChecks(idx: FileIndex, known: ReadonlySet<string>): ReadonlySet<string> {
  return idx.shared("fileLaunchChecks", () => ownLaunchChecks(idx, known));
}

/**
 * The project's own check to suggest: a non-built-in check the file already calls, else the first the
 * project defines or configures, else undefined.
 */
export function projectCheck(idx: FileIndex, checks: ReadonlySet<string>): string | undefined {
  const own = [...checks].filter((c) => !BUILTIN_CHECKS.includes(c));
  return own.find((c) => new RegExp(`\\b${c}\\s*\\(`).test(idx.text)) ?? own[0];
}
