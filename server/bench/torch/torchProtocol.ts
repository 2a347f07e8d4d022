// The TypeScript <-> Python boundary of the PyTorch baseline: sidecar.py (`python3 -u sidecar.py
// --device N`, one per run, or kept between runs by a SidecarPool) reads one TorchRequest per line on
// stdin, one per size, and prints one TorchResponse line on stdout for each, in order; a pooled one
// gets `{"release": true}` at the end of each run and answers `{"released": Released}`. It exits when
// stdin closes. Owned here; sidecar.py reads and writes exactly these fields.
import type { DType, Init, SampleStats, TimingOptions, Tolerance } from "../../../native/runner/protocol";

export type TorchArg =
  | {
      kind: "buffer";
      name: string;
      dtype: DType;
      count: number;
      init: Init;
      /** The seed the runner used: the init's, else the argument's 1-based position. */
      seed: number;
      output?: Tolerance;
    }
  | { kind: "scalar"; name: string; dtype: DType; value: number };

export interface TorchRequest {
  /** The Python expression, over the arguments (by name), the sweep variables, `torch` and `F`. */
  expr: string;
  /** Also time `torch.compile` of it. */
  compile: boolean;
  device: number;
  /** In the kernel's parameter order. */
  args: TorchArg[];
  /** The sweep and derived variables of this size. */
  vars: Record<string, number>;
  timing: TimingOptions;
  /** The flush buffer is twice this (32 MiB at least), as in the runner. */
  l2Bytes: number;
  /** Where the runner wrote the kernel's outputs, `<arg>.bin` each, raw; none: no check. */
  outputsDir?: string;
}

/** One kernel output against the expression's tensor (matched in order). */
export interface TorchCheck {
  arg: string;
  pass: boolean;
  elements: number;
  mismatches: number;
  /** null: NaN or infinite. Absent when the element counts differ (then `message` says so). */
  maxAbsErr?: number | null;
  maxRelErr?: number | null;
  cosine?: number | null;
  message?: string;
}

export type TorchStats = Omit<SampleStats, "gbPerSec" | "pctPeakBandwidth" | "tflops">;

export type TorchResponse =
  | {
      checks: TorchCheck[];
      eager: TorchStats;
      compiled?: TorchStats;
      /** torch.compile failed: its error in one line (the eager figures still stand). */
      compileError?: string;
      torchVersion: string;
    }
  | {
      /**
       * "unavailable": no torch, or no CUDA in it; "expr": the expression raised (its Python error in
       * one line); "internal": the sidecar itself failed.
       */
      error: { kind: "unavailable" | "expr" | "internal"; message: string };
    };

/** The answer to `{"release": true}`: the run's tensors are gone, its cached GPU memory given back. */
export interface Released {
  /** torch.cuda.memory_allocated() now, after gc and empty_cache. */
  allocatedBytes: number;
  /** The same just after the sidecar set up CUDA, before any run: what allocatedBytes returns to. */
  baselineBytes: number;
  /** torch.cuda.memory_reserved() now: the caching allocator's hold, given back to the driver. */
  reservedBytes: number;
}
