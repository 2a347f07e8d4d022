// A benchmark's inputs and output checks: generated and compared on the GPU (the addon's fillBuffer
// and compareBuffers, native/src/gpuData.cu), so only summaries cross to the host. On the host, with
// the same values (hostData.ts, native/GENERATOR.md), only where the data kernels' PTX does not load
// (a driver too old to JIT it); the result's `dataOn` says which.
import type { CudaAddon, DevicePtr } from "../addon";
import { DTYPE_BYTES, countPoisoned, decode, initialBytes, seedOf } from "./hostData";
import { checkOutput, toOutputCheck } from "./outputCheck";
import type { DType, KernelArg, OutputCheck, Tolerance } from "./protocol";

export interface DeviceBuffer {
  arg: string;
  dtype: DType;
  count: number;
  ptr: DevicePtr;
}

type BufferArg = Extract<KernelArg, { kind: "buffer" }>;

const notSupported = (err: unknown): boolean => (err as { code?: string }).code === "NOT_SUPPORTED";

/** fillBuffer's two f32 operands: uniform's low and high, constant's value. */
function operands(init: BufferArg["init"]): { a: number; b: number } {
  if (init.kind === "uniform") return { a: init.low, b: init.high };
  if (init.kind === "constant") return { a: init.value, b: 0 };
  return { a: 0, b: 0 };
}

export class BenchData {
  /** Turns "host" for the rest of the request at the first NOT_SUPPORTED from the GPU path. */
  where: "gpu" | "host" = "gpu";

  constructor(private readonly cuda: CudaAddon) {}

  /** Writes the arg's initial values; position: the default seed (the argument's 1-based position). */
  fill(ptr: DevicePtr, arg: BufferArg, position: number): void {
    if (this.where === "gpu") {
      try {
        const { kind } = arg.init;
        const seed = seedOf(arg.init, position);
        this.cuda.fillBuffer({ ptr, dtype: arg.dtype, count: arg.count, kind, seed, ...operands(arg.init) });
        return;
      } catch (err) {
        if (!notSupported(err)) throw err;
        this.where = "host";
      }
    }
    this.cuda.memcpyHtoD(ptr, initialBytes(arg, position));
  }

  /** Checks an output after the check launch, against the baseline's output `want` when given. */
  check(got: DeviceBuffer, tolerance: Tolerance, want?: DeviceBuffer): OutputCheck {
    if (want && want.count !== got.count) {
      throw new Error(`output ${got.arg}: kernel has ${got.count} elements, baseline ${want.count}`);
    }
    if (this.where === "gpu") {
      try {
        const sums = this.cuda.compareBuffers({
          got: { ptr: got.ptr, dtype: got.dtype },
          ...(want ? { want: { ptr: want.ptr, dtype: want.dtype } } : {}),
          count: got.count,
          atol: tolerance.atol,
          rtol: tolerance.rtol,
        });
        return toOutputCheck(got.arg, sums, want !== undefined);
      } catch (err) {
        if (!notSupported(err)) throw err;
        this.where = "host";
      }
    }
    const read = (b: DeviceBuffer) => this.cuda.memcpyDtoH(b.ptr, b.count * DTYPE_BYTES[b.dtype]);
    const bytes = read(got);
    const values = decode(got.dtype, bytes);
    const wanted = want ? decode(want.dtype, read(want)) : undefined;
    return checkOutput(
      { arg: got.arg, values, unwritten: countPoisoned(got.dtype, bytes) },
      tolerance,
      wanted,
    );
  }
}
