// One hover doc entry: what the hover shows for a CUDA name.

export interface CudaDoc {
  kind: "intrinsic" | "type" | "built-in variable" | "qualifier" | "runtime API" | "macro" | "math function";
  signature: string;
  meaning: string;
  /** Architectures / headers it needs. */
  availability: string;
  pitfall: string;
}
