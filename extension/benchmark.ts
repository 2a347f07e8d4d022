// "▶ Benchmark" above every __global__ kernel, and the `cudaKernelDev.benchmark` command behind it:
// save, compile (cached), run each size in the GPU runner process under a cancellable progress
// notification, append the history, show the results panel. Errors are one clear message.
import * as vscode from "vscode";
import { RunnerClient } from "../native/runner/runnerClient";
import { defaultCacheDir } from "../server/bench/compile";
import { type KernelInfo, scanKernels } from "../server/bench/kernelScan";
import { recordRun } from "../server/bench/recordRun";
import { historyEntry } from "../server/bench/report";
import { BenchError, findKernel, runBenchmark } from "../server/bench/runBench";
import { showResults } from "./benchPanel";
import { WRITE_SPEC_COMMAND } from "./specAction";

export const BENCHMARK_COMMAND = "cudaKernelDev.benchmark";

const qualified = (k: KernelInfo) => [...k.namespaces, k.name].join("::");

class BenchmarkLenses implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    // The scan is a masked-text pass (no parse): cheap enough for every edit.
    return scanKernels(doc.getText())
      .filter((k) => k.hasBody)
      .map((k) => {
        const range = new vscode.Range(k.declLine, 0, k.declLine, 0);
        return new vscode.CodeLens(range, {
          title: "▶ Benchmark",
          tooltip:
            k.specLines.length > 0
              ? `Benchmark ${k.name} from its @bench spec`
              : `${k.name} has no @bench spec yet`,
          command: BENCHMARK_COMMAND,
          arguments: [doc.uri.toString(), qualified(k)],
        });
      });
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** The kernel under the cursor: the last one declared at or above it. */
function kernelAtCursor(editor: vscode.TextEditor): KernelInfo | undefined {
  const line = editor.selection.active.line;
  return scanKernels(editor.document.getText())
    .filter((k) => k.hasBody && k.declLine <= line)
    .pop();
}

let running: AbortController | undefined;
let client: RunnerClient | undefined;

async function benchmark(
  ctx: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  uriArg: unknown,
  kernelArg: unknown,
): Promise<void> {
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showErrorMessage(
      "CUDA Kernel Dev: benchmarking compiles and runs code; trust this workspace first.",
    );
    return;
  }
  const editor = vscode.window.activeTextEditor;
  const uri = typeof uriArg === "string" ? vscode.Uri.parse(uriArg) : editor?.document.uri;
  if (!uri) {
    void vscode.window.showErrorMessage("CUDA Kernel Dev: open a .cu file to benchmark one of its kernels.");
    return;
  }
  const doc = await vscode.workspace.openTextDocument(uri);
  const kernels = scanKernels(doc.getText());
  const kernel =
    typeof kernelArg === "string"
      ? findKernel(kernels, kernelArg)
      : editor
        ? kernelAtCursor(editor)
        : undefined;
  if (!kernel) {
    void vscode.window.showErrorMessage(
      `CUDA Kernel Dev: no __global__ kernel ${typeof kernelArg === "string" ? `'${kernelArg}' ` : "at the cursor "}in ${vscode.workspace.asRelativePath(uri)}.`,
    );
    return;
  }
  if (kernel.specLines.length === 0) {
    const write = "Write a spec";
    const pick = await vscode.window.showInformationMessage(
      `CUDA Kernel Dev: ${kernel.name} has no // @bench spec saying what sizes and arguments to run it with.`,
      write,
    );
    if (pick === write)
      await vscode.commands.executeCommand(WRITE_SPEC_COMMAND, uri.toString(), qualified(kernel));
    return;
  }
  if (running) {
    void vscode.window.showWarningMessage(
      "CUDA Kernel Dev: a benchmark is already running; cancel it or wait.",
    );
    return;
  }
  // nvcc reads the file from disk.
  if (doc.isDirty && !(await doc.save())) {
    void vscode.window.showErrorMessage(
      "CUDA Kernel Dev: the file could not be saved; nothing was benchmarked.",
    );
    return;
  }
  const config = vscode.workspace.getConfiguration("cudaKernelDev", uri);
  const folder = vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath;
  client ??= new RunnerClient({
    timeoutSeconds: config.get<number>("runner.timeoutSeconds", 20),
    log: (line) => log.debug(`runner: ${line}`),
  });
  const abort = new AbortController();
  running = abort;
  try {
    const results = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `Benchmark ${kernel.name}`,
        cancellable: true,
      },
      (progress, token) => {
        token.onCancellationRequested(() => abort.abort());
        return runBenchmark({
          file: uri.fsPath,
          kernel: qualified(kernel),
          runner: client!,
          device: config.get<number>("bench.device", 0),
          ...(config.get<string>("nvcc.path") ? { nvccPath: config.get<string>("nvcc.path")! } : {}),
          includePaths: config.get<string[]>("nvcc.includePaths", []),
          extraArgs: config.get<string[]>("nvcc.extraArgs", []),
          ...(config.get<string>("bench.arch") ? { arch: config.get<string>("bench.arch")! } : {}),
          ...(folder ? { workspace: folder } : {}),
          cacheDir: defaultCacheDir(),
          signal: abort.signal,
          onProgress: (p) => {
            if (p.stage === "checking") progress.report({ message: "checking the GPU and nvcc…" });
            else if (p.stage === "compiling") progress.report({ message: "compiling…" });
            else if (p.stage === "result") {
              progress.report({ increment: 100 / p.points });
              // The first size's figures as soon as they are in; the rest fill in as they come.
              if (p.results.pendingSizes) showResults(ctx, log, p.results);
            } else
              progress.report({
                message: `${p.label} (${p.point + 1}/${p.points})${p.phase ? ` ${p.phase}${p.samples ? `, ${p.samples} samples` : ""}` : ""}`,
              });
          },
        });
      },
    );
    log.info(
      `benchmark ${results.instance}: ${results.points.length} sizes, compile ${results.compile.cached ? "cached" : `${results.compile.ms.toFixed(0)} ms`}, ${results.totalMs.toFixed(0)} ms in all`,
    );
    // The history never costs the run: a damaged or unwritable file is a warning beside the results.
    const recorded = folder
      ? await recordRun(folder, historyEntry(results))
      : { history: [historyEntry(results)] };
    if (recorded.warning) void vscode.window.showWarningMessage(`CUDA Kernel Dev: ${recorded.warning}`);
    const history = recorded.history;
    showResults(ctx, log, results, history);
    const failed = results.points.filter((p) => p.error);
    if (failed.length > 0) {
      const e = failed[0]!.error!;
      void vscode.window.showErrorMessage(
        `CUDA Kernel Dev: ${kernel.name} failed at ${failed[0]!.label}: ${e.code}${e.call ? ` in ${e.call}` : ""}: ${e.message}`,
      );
    } else if (!results.ok)
      void vscode.window.showWarningMessage(
        `CUDA Kernel Dev: ${kernel.name}'s outputs differ from the baseline's; see the panel.`,
      );
  } catch (e) {
    if (e instanceof BenchError) {
      if (e.code === "CANCELLED") {
        log.info(`benchmark ${kernel.name}: cancelled`);
        return;
      }
      if (e.detail) log.error(e.detail);
      const showLog = e.detail ? "Show Log" : undefined;
      const pick = await vscode.window.showErrorMessage(
        `CUDA Kernel Dev: ${e.message}`,
        ...(showLog ? [showLog] : []),
      );
      if (pick === showLog) log.show(true);
      return;
    }
    log.error(`benchmark ${kernel.name}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    void vscode.window.showErrorMessage(
      `CUDA Kernel Dev: the benchmark failed: ${e instanceof Error ? e.message : String(e)}`,
    );
  } finally {
    running = undefined;
  }
}

export function activate(ctx: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  const lenses = new BenchmarkLenses();
  ctx.subscriptions.push(
    lenses,
    vscode.languages.registerCodeLensProvider({ language: "cuda-cpp" }, lenses),
    vscode.commands.registerCommand(BENCHMARK_COMMAND, (uri: unknown, kernel: unknown) =>
      benchmark(ctx, log, uri, kernel),
    ),
    {
      dispose: () => {
        running?.abort();
        void client?.dispose();
        client = undefined;
      },
    },
  );
}
