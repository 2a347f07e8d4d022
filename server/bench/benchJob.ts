// What a benchmark is asked to do and how it answers, shared by its stages: the job a caller (the
// CLI, the extension, profiling) hands in, the progress it reports, the one-line errors it throws,
// and what it needs of a runner client.
import type {
  ProgressMessage,
  RunnerError,
  RunnerMethod,
  RunnerRequests,
} from "../../native/runner/protocol";
import type { KernelInfo } from "./kernelScan";
import type { BenchRunResults } from "./results";
import type { SidecarPool } from "./torch/sidecarPool";

/** What the benchmark needs of a runner client (native/runner/runnerClient.ts's RunnerClient). */
export interface BenchRunner {
  request<M extends RunnerMethod>(
    method: M,
    params: RunnerRequests[M]["params"],
    options?: {
      signal?: AbortSignal;
      onProgress?: (p: ProgressMessage["progress"]) => void;
      timeoutSeconds?: number;
    },
  ): Promise<RunnerRequests[M]["result"]>;
}

/**
 * A failure the user should read as one line. `code`: "NO_KERNEL", "NO_SPEC", "BAD_SPEC",
 * "MISSING" (driver/GPU/nvcc), "COMPILE", "SYMBOL", "CANCELLED", or a runner code.
 */
export class BenchError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly detail?: string,
  ) {
    super(message);
    this.name = "BenchError";
  }
}

export interface BenchJob {
  file: string;
  /** `name` or `ns::name`. */
  kernel: string;
  /**
   * scanKernels(text) of the file's text, where the caller has already scanned it (the extension
   * does, to find the kernel clicked): then the file is neither read nor scanned again here.
   * Without it the file is read and scanned once, and every stage shares that scan.
   */
  scan?: KernelInfo[];
  runner: BenchRunner;
  device?: number;
  /** cudaKernelDev.nvcc.path */
  nvccPath?: string;
  /** cudaKernelDev.python.path: the Python of the PyTorch baseline (`@bench torch`); default python3. */
  pythonPath?: string;
  /** Where a long-lived caller keeps PyTorch sidecars between runs; none: one per run, closed at its end. */
  sidecars?: SidecarPool;
  /** cudaKernelDev.nvcc.includePaths / extraArgs, added to the file's compile_commands.json flags. */
  includePaths?: string[];
  extraArgs?: string[];
  workspace?: string;
  /** Overrides the device's architecture (e.g. "sm_90a"). */
  arch?: string;
  cacheDir: string;
  /** The timing calibration file (calibration.ts); default: the user's cache folder. */
  calibrationPath?: string;
  /**
   * With a calibration, time the empty kernel in this run's runner process and take off its event time
   * less ncu's (emptyKernel.ts); false: the cached offset. Default true.
   */
  eventOverheadPerRun?: boolean;
  signal?: AbortSignal;
  onProgress?: (p: BenchProgress) => void;
}

export type BenchProgress =
  | { stage: "checking" }
  | { stage: "compiling" }
  | { stage: "running"; point: number; points: number; label: string; phase?: string; samples?: number }
  /** A size finished: the results so far, to show before the rest of the sweep is done. */
  | { stage: "result"; point: number; points: number; label: string; results: BenchRunResults }
  /** torch's answer for a size (after all the kernel's sizes): the results with its columns. */
  | { stage: "torch"; point: number; points: number; label: string; results: BenchRunResults };

/** The job's cancellation, as request options for the runner and nvcc (none when it has no signal). */
export function signalOf(job: BenchJob): { signal?: AbortSignal } {
  return job.signal ? { signal: job.signal } : {};
}

/** An error the runner client rejected with: it carries the runner's `code`. */
export function isRunnerError(e: unknown): e is RunnerError & Error {
  return e instanceof Error && typeof (e as unknown as RunnerError).code === "string";
}

/** A cancellation, the run's own or the runner's, thrown on as the benchmark reports it. */
export function rethrowCancelled(e: unknown): void {
  if (e instanceof BenchError && e.code === "CANCELLED") throw e;
  if (isRunnerError(e) && e.code === "CANCELLED") throw new BenchError("CANCELLED", "cancelled");
}
