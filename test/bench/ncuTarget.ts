// The process bench:gpu runs under Nsight Compute: loads a cubin with the addon, makes each case's
// buffers (generated on the GPU) and launches each case's kernel `launches` times, waiting after each,
// with no timing of its own (ncu times them). Usage: node dist/gpu-tests/ncuTarget.js cases.json
// where cases.json is {cubin, launches, cases: LaunchSpec[]}.
import { readFileSync } from "node:fs";
import type { DevicePtr } from "../../native/addon";
import { loadAddon } from "../../native/runner/addon";
import { DTYPE_BYTES, packPointer, packScalar, seedOf } from "../../native/runner/hostData";
import type { LaunchSpec } from "../../native/runner/protocol";

interface Cases {
  cubin: string;
  launches: number;
  cases: LaunchSpec[];
}

function main(): void {
  const { cubin, launches, cases } = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as Cases;
  const cuda = loadAddon();
  cuda.init();
  cuda.useDevice(0);
  const mod = cuda.loadModule(cubin);
  for (const spec of cases) {
    const fn = cuda.getFunction(mod, spec.symbol);
    const live: DevicePtr[] = [];
    const args = spec.args.map((a, position) => {
      if (a.kind === "scalar") return packScalar(a.dtype, a.value);
      const ptr = cuda.memAlloc(a.count * DTYPE_BYTES[a.dtype]);
      live.push(ptr);
      const init = a.init;
      const ab =
        init.kind === "uniform"
          ? { a: init.low, b: init.high }
          : { a: init.kind === "constant" ? init.value : 0, b: 0 };
      cuda.fillBuffer({
        ptr,
        dtype: a.dtype,
        count: a.count,
        kind: init.kind,
        seed: seedOf(init, position + 1),
        ...ab,
      });
      return packPointer(ptr);
    });
    const options = { fn, grid: spec.grid, block: spec.block, sharedMemBytes: spec.dynamicSmemBytes, args };
    for (let i = 0; i < launches; i++) {
      cuda.launch(options);
      cuda.synchronize();
    }
    for (const p of live) cuda.memFree(p);
  }
  cuda.unloadModule(mod);
}

main();
