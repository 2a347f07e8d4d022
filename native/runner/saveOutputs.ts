// The kernel's outputs of the check launch, written raw for the PyTorch baseline to compare with its
// own (server/bench/torch/sidecar.py reads `<arg>.bin`). Separate from benchmark.ts: one call there.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CudaAddon, DevicePtr } from "../addon";
import { DTYPE_BYTES } from "./hostData";
import type { DType } from "./protocol";

export function saveOutputs(
  cuda: CudaAddon,
  outputs: readonly { arg: string; dtype: DType; count: number; ptr: DevicePtr }[],
  dir: string,
): void {
  for (const o of outputs)
    writeFileSync(join(dir, `${o.arg}.bin`), cuda.memcpyDtoH(o.ptr, o.count * DTYPE_BYTES[o.dtype]));
}
