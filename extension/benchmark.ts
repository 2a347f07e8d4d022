// The `cudaKernelDev.benchmark` command (behind the "▶ Benchmark" lens): save, compile (cached), run
// each size in the GPU runner process under a cancellable progress notification, append the
// history, show the results panel. Errors are one clear message. The runner process and the PyTorch
// sidecar (a SidecarPool: kept `cudaKernelDev.python.keepAliveSeconds` after a run) outlive a run,
// so a second run skips their start; both end when the extension does.
import * as vscode from "vscode";
import { RunnerClient } from "../native/runner/runnerClient";
import { defaultCacheDir } from "../server/bench/compile";
import type { KernelInfo } from "../server/bench/kernelScan";
import { recordRun } from "../server/bench/recordRun";
import { historyEntry } from "../server/bench/report";
import type { BenchRunResults } from "../server/bench/results";
import { BenchError, runBenchmark, type BenchProgress } from "../server/bench/runBench";
import { SidecarPool } from "../server/bench/torch/sidecarPool";
import { errorMessage } from "../server/util/errorMessage";
import { showResults } from "./benchPanel";
import { BENCHMARK_COMMAND, WRITE_SPEC_COMMAND, type Commands } from "./contributions";
import { kernelRef, kernelTarget, qualifiedName, type KernelTarget } from "./kernelRef";
import { settings } from "./settings";
import { requireTrust } from "./workspaceTrust";

type Progress = vscode.Progress<{ message?: string; increment?: number }>;
/** A kernel target that found its kernel. */
type Target = KernelTarget & { kernel: KernelInfo };

/** The benchmark feature: one run at a time, and the runner process and torch sidecar it keeps between runs. */
class Benchmarks implements vscode.Disposable {
  private running: AbortController | undefined;
  private client: RunnerClient | undefined;
  private readonly sidecars: SidecarPool;
  /** Another Python, or another keep-alive: the idle sidecar goes (the next run starts the right one). */
  private readonly settingsChanged: vscode.Disposable;

  constructor(
    private readonly ctx: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.sidecars = new SidecarPool({
      onReleased: (r) =>
        log.debug(
          `torch sidecar ${r.pid ?? "?"} kept: ${r.allocatedBytes} bytes allocated (${r.baselineBytes} at start), ${r.reservedBytes} reserved`,
        ),
    });
    this.settingsChanged = vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("cudaKernelDev.python")) void this.sidecars.closeIdle();
    });
  }

  async run(arg: unknown): Promise<void> {
    if (!requireTrust("benchmarking compiles and runs code")) return;
    const target = await this.target(arg);
    if (!target || !(await this.hasSpec(target))) return;
    if (this.running) {
      void vscode.window.showWarningMessage(
        "CUDA Kernel Dev: a benchmark is already running; cancel it or wait.",
      );
      return;
    }
    // nvcc reads the file from disk.
    if (target.doc.isDirty && !(await target.doc.save())) {
      void vscode.window.showErrorMessage(
        "CUDA Kernel Dev: the file could not be saved; nothing was benchmarked.",
      );
      return;
    }
    const abort = new AbortController();
    this.running = abort;
    try {
      await this.show(target, await this.sweep(target, abort));
    } catch (e) {
      await this.failed(target.kernel, e);
    } finally {
      this.running = undefined;
    }
  }

  /** The kernel to benchmark, or a message saying why there is none. */
  private async target(arg: unknown): Promise<Target | undefined> {
    const target = await kernelTarget(arg);
    if (!target) {
      void vscode.window.showErrorMessage(
        "CUDA Kernel Dev: open a .cu file to benchmark one of its kernels.",
      );
      return undefined;
    }
    const { kernel } = target;
    if (!kernel) {
      void vscode.window.showErrorMessage(
        `CUDA Kernel Dev: no __global__ kernel ${target.wanted !== undefined ? `'${target.wanted}' ` : "at the cursor "}in ${vscode.workspace.asRelativePath(target.doc.uri)}.`,
      );
      return undefined;
    }
    return { ...target, kernel };
  }

  /** A kernel without a @bench spec is offered one instead of a run. */
  private async hasSpec({ doc, kernel }: Target): Promise<boolean> {
    if (kernel.specLines.length > 0) return true;
    const write = "Write a spec";
    const pick = await vscode.window.showInformationMessage(
      `CUDA Kernel Dev: ${kernel.name} has no // @bench spec saying what sizes and arguments to run it with.`,
      write,
    );
    if (pick === write) await vscode.commands.executeCommand(WRITE_SPEC_COMMAND, kernelRef(doc.uri, kernel));
    return false;
  }

  /** Every size of the spec, in the runner, under a cancellable progress notification. */
  private sweep({ doc, scan, kernel }: Target, abort: AbortController): Thenable<BenchRunResults> {
    const s = settings(doc.uri);
    const folder = vscode.workspace.getWorkspaceFolder(doc.uri)?.uri.fsPath;
    const bench = s.bench;
    this.client ??= new RunnerClient({
      timeoutSeconds: bench.runnerTimeoutSeconds,
      log: (line) => this.log.debug(`runner: ${line}`),
    });
    const runner = this.client;
    this.sidecars.keepAliveMs = s.pythonKeepAliveSeconds * 1000;
    return vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `Benchmark ${kernel.name}`,
        cancellable: true,
      },
      (progress, token) => {
        token.onCancellationRequested(() => abort.abort());
        return runBenchmark({
          file: doc.uri.fsPath,
          kernel: qualifiedName(kernel),
          scan,
          runner,
          device: bench.device,
          ...(s.nvcc.path ? { nvccPath: s.nvcc.path } : {}),
          pythonPath: s.pythonPath,
          sidecars: this.sidecars,
          includePaths: s.nvcc.includePaths,
          extraArgs: s.nvcc.extraArgs,
          ...(bench.arch ? { arch: bench.arch } : {}),
          ...(folder ? { workspace: folder } : {}),
          cacheDir: defaultCacheDir(),
          signal: abort.signal,
          onProgress: (p) => this.progress(progress, p),
        });
      },
    );
  }

  private progress(progress: Progress, p: BenchProgress): void {
    if (p.stage === "checking") progress.report({ message: "checking the GPU and nvcc…" });
    else if (p.stage === "compiling") progress.report({ message: "compiling…" });
    else if (p.stage === "result") {
      progress.report({ increment: 100 / p.points });
      // The first size's figures as soon as they are in; the rest fill in as they come.
      if (p.results.pendingSizes || torchToCome(p.results)) showResults(this.ctx, this.log, p.results);
    } else if (p.stage === "torch") {
      // torch's columns fill in after the kernel's sizes; the last one comes with the final results.
      if (p.point < p.points - 1) showResults(this.ctx, this.log, p.results);
    } else
      progress.report({
        message: `${p.label} (${p.point + 1}/${p.points})${p.phase ? ` ${p.phase}${p.samples ? `, ${p.samples} samples` : ""}` : ""}`,
      });
  }

  /** The results in the panel with the history; a failed size or differing outputs in a message too. */
  private async show({ doc, kernel }: Target, results: BenchRunResults): Promise<void> {
    this.log.info(
      `benchmark ${results.instance}: ${results.points.length} sizes, compile ${results.compile.cached ? "cached" : `${results.compile.ms.toFixed(0)} ms`}, ${results.totalMs.toFixed(0)} ms in all`,
    );
    // The history never costs the run: a damaged or unwritable file is a warning beside the results.
    const folder = vscode.workspace.getWorkspaceFolder(doc.uri)?.uri.fsPath;
    const recorded = folder
      ? await recordRun(folder, historyEntry(results))
      : { history: [historyEntry(results)] };
    if (recorded.warning) void vscode.window.showWarningMessage(`CUDA Kernel Dev: ${recorded.warning}`);
    showResults(this.ctx, this.log, results, recorded.history);
    const failed = results.points.find((p) => p.error);
    if (failed?.error) {
      const e = failed.error;
      void vscode.window.showErrorMessage(
        `CUDA Kernel Dev: ${kernel.name} failed at ${failed.label}: ${e.code}${e.call ? ` in ${e.call}` : ""}: ${e.message}`,
      );
    } else if (!results.ok)
      void vscode.window.showWarningMessage(
        `CUDA Kernel Dev: ${kernel.name}'s outputs differ from the baseline's; see the panel.`,
      );
  }

  private async failed(kernel: KernelInfo, e: unknown): Promise<void> {
    if (e instanceof BenchError) {
      if (e.code === "CANCELLED") {
        this.log.info(`benchmark ${kernel.name}: cancelled`);
        return;
      }
      if (e.detail) this.log.error(e.detail);
      const showLog = e.detail ? "Show Log" : undefined;
      const pick = await vscode.window.showErrorMessage(
        `CUDA Kernel Dev: ${e.message}`,
        ...(showLog ? [showLog] : []),
      );
      if (pick === showLog) this.log.show(true);
      return;
    }
    this.log.error(`benchmark ${kernel.name}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    void vscode.window.showErrorMessage(`CUDA Kernel Dev: the benchmark failed: ${errorMessage(e)}`);
  }

  dispose(): void {
    this.running?.abort();
    void this.client?.dispose();
    this.client = undefined;
    this.settingsChanged.dispose();
    void this.sidecars.dispose(); // SIGTERM now: none outlives the extension
  }
}

/** The bench bundle's benchmark runs and their command. */
export function activate(
  ctx: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
): Commands<typeof BENCHMARK_COMMAND> {
  const benchmarks = new Benchmarks(ctx, log);
  ctx.subscriptions.push(benchmarks);
  return { [BENCHMARK_COMMAND]: (ref) => benchmarks.run(ref) };
}

/** The kernel's sizes are all in, torch's columns still to come. */
function torchToCome(r: BenchRunResults): boolean {
  return !!r.torch && !r.torch.unavailable && r.points.some((p) => p.kernel && !p.torch);
}
