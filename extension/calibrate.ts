// "CUDA Kernel Dev: Calibrate Benchmark Timing Against Nsight Compute": times an empty kernel with
// CUDA events and under ncu (server/profile/calibrate.ts) under a cancellable progress notification,
// and keeps the difference in the user's cache folder; later benchmarks on this GPU and driver report
// times less it. Needs a trusted workspace (it runs nvcc, ncu and the runner).
import * as vscode from "vscode";
import { defaultRunnerPath, RunnerClient } from "../native/runner/runnerClient";
import { BenchError } from "../server/bench/benchJob";
import { calibrationNote, appliedOf } from "../server/bench/calibration";
import { calibrate } from "../server/profile/calibrate";
import { errorMessage } from "../server/util/errorMessage";
import { CALIBRATE_COMMAND, type Commands } from "./contributions";
import { settings } from "./settings";
import { requireTrust } from "./workspaceTrust";

async function run(log: vscode.LogOutputChannel): Promise<void> {
  if (!requireTrust("calibrating runs nvcc, ncu and the GPU runner")) return;
  const s = settings();
  const client = new RunnerClient({
    timeoutSeconds: s.bench.runnerTimeoutSeconds,
    log: (line) => log.debug(`runner: ${line}`),
  });
  const abort = new AbortController();
  try {
    const c = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: "Calibrating benchmark timing against Nsight Compute",
        cancellable: true,
      },
      (progress, token) => {
        token.onCancellationRequested(() => abort.abort());
        return calibrate({
          runner: client,
          ncuPath: s.ncu.path,
          runnerPath: defaultRunnerPath(),
          execPath: process.execPath,
          device: s.bench.device,
          ...(s.nvcc.path ? { nvccPath: s.nvcc.path } : {}),
          signal: abort.signal,
          onStep: (message) => progress.report({ message }),
          onLine: (line) => log.debug(`ncu: ${line}`),
        });
      },
    );
    const line = `${c.gpu}: empty kernel ${(c.eventNs / 1e3).toFixed(2)} µs between events, ${(c.ncuNs / 1e3).toFixed(2)} µs to ncu; ${calibrationNote(appliedOf(c))}`;
    log.info(`timing calibration: ${line}`);
    void vscode.window.showInformationMessage(`CUDA Kernel Dev: ${line}.`);
  } catch (e) {
    if (e instanceof BenchError && e.code === "CANCELLED") return;
    log.error(`timing calibration: ${errorMessage(e)}`);
    void vscode.window.showErrorMessage(`CUDA Kernel Dev: calibration failed: ${errorMessage(e)}`);
  } finally {
    await client.dispose();
  }
}

export function activate(log: vscode.LogOutputChannel): Commands<typeof CALIBRATE_COMMAND> {
  return { [CALIBRATE_COMMAND]: () => run(log) };
}
