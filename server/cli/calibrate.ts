// `cuda-kernel-dev bench --calibrate`: measures this GPU's CUDA-event overhead against Nsight Compute
// (server/profile/calibrate.ts) and keeps it in the user's cache folder, so later benchmarks on this
// GPU and driver report times less it. Prints what was measured and kept; --json prints it as JSON.
import { defaultRunnerPath, RunnerClient } from "../../native/runner/runnerClient";
import { calibrationPath } from "../bench/calibration";
import { calibrate } from "../profile/calibrate";
import { toCliError } from "./ncu";

export interface CalibrateCliOptions {
  device: number;
  ncu: string;
  nvcc?: string;
  json?: boolean;
  timeoutSeconds: number;
}

const us = (ns: number) => `${(ns / 1e3).toFixed(2)} µs`;

export async function runCalibrateCli(o: CalibrateCliOptions): Promise<void> {
  const client = new RunnerClient({ timeoutSeconds: o.timeoutSeconds });
  const path = calibrationPath();
  try {
    const c = await calibrate({
      runner: client,
      ncuPath: o.ncu,
      runnerPath: defaultRunnerPath(),
      execPath: process.execPath,
      device: o.device,
      ...(o.nvcc ? { nvccPath: o.nvcc } : {}),
      path,
      onStep: (m) => {
        if (!o.json) process.stderr.write(`calibrate: ${m}\n`);
      },
    });
    process.stdout.write(
      o.json
        ? `${JSON.stringify({ ...c, path }, null, 2)}\n`
        : [
            `${c.gpu} (driver ${c.driverVersion}): empty <<<1,1>>> kernel ${us(c.eventNs)} between CUDA events, ${us(c.ncuNs)} to ncu (median of ${c.ncuLaunches})`,
            `event overhead ${us(c.offsetNs)}: benchmarks on this GPU and driver now report times less it (raw figures kept)`,
            `kept in ${path}`,
          ].join("\n") + "\n",
    );
  } catch (e) {
    throw toCliError(e);
  } finally {
    await client.dispose();
  }
}
