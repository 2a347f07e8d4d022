// Copies of a kernel's buffers that its timed samples take in turn. A small kernel's event time
// depends on where its buffers landed in memory: on an H100, vector add n=65,536 read 3.84-4.16 µs
// over 12 allocations in one process, each allocation steady within 16 ns from round to round, so one
// process's one allocation could put it 2% off another's (and off ncu's, whose own process has its
// own). Timing over several copies, in turn, pools placements so that no single one decides the
// median. Kernels with large buffers span enough pages to average placement out themselves, and get
// one set.
import type { CudaAddon, DevicePtr } from "../addon";
import type { BenchData } from "./deviceData";
import { DTYPE_BYTES, POISON_BYTE, packPointer } from "./hostData";
import type { LaunchSpec } from "./protocol";

/** At most this many sets, as long as they fit in BUFFER_SETS_BYTES together. */
export const MAX_BUFFER_SETS = 16;
export const BUFFER_SETS_BYTES = 128 * 1024 * 1024;

function setBytes(spec: LaunchSpec): number {
  return spec.args.reduce((n, a) => n + (a.kind === "buffer" ? a.count * DTYPE_BYTES[a.dtype] : 0), 0);
}

/** How many sets of the kernel's buffers to time over: 1 without buffers or with large ones. */
export function bufferSetCount(spec: LaunchSpec): number {
  const bytes = setBytes(spec);
  if (bytes === 0) return 1;
  return Math.max(1, Math.min(MAX_BUFFER_SETS, Math.floor(BUFFER_SETS_BYTES / bytes)));
}

const outOfMemory = (err: unknown): boolean => (err as { code?: string }).code === "CUDA_ERROR_OUT_OF_MEMORY";

/**
 * The launch arguments of `count - 1` more sets beside `first` (the checked set's): inputs generated
 * as the first set's were, outputs poisoned as its were before the check launch, scalars the same.
 * Fewer where the GPU runs out of memory: the sets made so far are used. Every allocation goes to
 * `allocations`, which the caller frees.
 */
export function moreBufferSets(
  cuda: CudaAddon,
  spec: LaunchSpec,
  first: Uint8Array[],
  count: number,
  allocations: DevicePtr[],
  data: BenchData,
): Uint8Array[][] {
  const sets = [first];
  try {
    while (sets.length < count) {
      sets.push(
        spec.args.map((a, position) => {
          if (a.kind === "scalar") return first[position]!;
          const bytes = a.count * DTYPE_BYTES[a.dtype];
          const ptr = cuda.memAlloc(bytes);
          allocations.push(ptr);
          if (a.output) cuda.memsetD8(ptr, POISON_BYTE, bytes);
          else data.fill(ptr, a, position + 1);
          return packPointer(ptr);
        }),
      );
    }
  } catch (err) {
    if (!outOfMemory(err)) throw err;
  }
  return sets;
}
