// `cuda-kernel-dev devices [--json]`: the CUDA devices the runner sees, with the figures benchmarks
// and occupancy use. With no GPU or driver: one line saying what is missing and exit 3; `--json`
// prints [] instead, so scripts can test for "no GPU" without parsing an error.
import { Command } from "commander";
import { RunnerClient, RunnerRequestError } from "../../native/runner/runnerClient";
import type { DeviceAttributes } from "../../native/runner/protocol";
import { CliError } from "./cliError";
import { EXIT } from "./exitCodes";

/** Codes meaning "this machine cannot run CUDA", as opposed to a failure worth a bug report. */
const NO_GPU_CODES = new Set(["NO_DRIVER", "NO_ADDON", "CUDA_ERROR_NO_DEVICE"]);

const MiB = 1024 * 1024;

function describe(d: DeviceAttributes): string {
  return [
    `${d.ordinal}: ${d.name} (sm_${d.computeCapability.replace(".", "")})`,
    `  ${d.smCount} SMs, ${(d.totalMemoryBytes / 1024 ** 3).toFixed(1)} GiB, ` +
      `peak DRAM ${d.peakDramBandwidthGBs.toFixed(0)} GB/s (${d.memoryBusWidthBits}-bit @ ${d.memoryClockKHz / 1000} MHz), ` +
      `L2 ${(d.l2CacheBytes / MiB).toFixed(0)} MiB`,
    `  per SM: ${d.maxThreadsPerSM} threads, ${d.maxBlocksPerSM} blocks, ${d.regsPerSM} registers, ` +
      `${d.sharedMemPerSMBytes / 1024} KiB shared; per block: ${d.maxThreadsPerBlock} threads, ` +
      `${d.sharedMemPerBlockOptinBytes / 1024} KiB shared (opt-in)`,
  ].join("\n");
}

export function devicesCommand(): Command {
  return new Command("devices")
    .description("List CUDA devices and their limits (needs the NVIDIA driver).")
    .option("--json", "print a JSON array ([] when there is no GPU or driver)")
    .action(async (opts: { json?: boolean }) => {
      const client = new RunnerClient();
      try {
        const devices = await client.request("devices", {});
        if (opts.json) process.stdout.write(`${JSON.stringify(devices, null, 2)}\n`);
        else if (devices.length === 0) throw new CliError("no CUDA devices", EXIT.tool);
        else process.stdout.write(`${devices.map(describe).join("\n")}\n`);
      } catch (err) {
        if (err instanceof RunnerRequestError && NO_GPU_CODES.has(err.code)) {
          if (opts.json) {
            process.stdout.write("[]\n");
            return;
          }
          throw new CliError(`no usable GPU: ${err.message}`, EXIT.tool);
        }
        if (err instanceof RunnerRequestError)
          throw new CliError(`the GPU runner failed: ${err.code}: ${err.message}`, EXIT.tool);
        throw err;
      } finally {
        await client.dispose();
      }
    });
}
