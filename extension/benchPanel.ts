// The benchmark results panel: one per kernel, hosted by webviewHost.ts, and the command that opens
// a saved results JSON (`cudaKernelDev.openBenchResults`).
import { readFile } from "node:fs/promises";
import * as vscode from "vscode";
import { readHistory } from "../server/bench/history";
import { type BenchRunResults, type HistoryEntry, isBenchRunResults } from "../server/bench/results";
import { errorMessage } from "../server/util/errorMessage";
import type { HostMessage } from "../webview/bench/protocol";
import { OPEN_RESULTS_COMMAND, type Commands } from "./contributions";
import { type PanelOptions, PanelSet } from "./webviewHost";

const panels = new PanelSet<HostMessage>();

/**
 * Shows results in the kernel's panel (created, or revealed and updated). Without a history (the
 * snapshots shown while a sweep runs) the panel keeps the history it has.
 */
export function showResults(
  ctx: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  results: BenchRunResults,
  history?: HistoryEntry[],
): void {
  const key = `${results.file}::${results.kernel}`;
  const shown = panels.get(key)?.state;
  const message: HostMessage = {
    type: "show",
    results,
    history: history ?? (shown?.type === "show" ? shown.history : []),
  };
  const options: PanelOptions = {
    extensionUri: ctx.extensionUri,
    log,
    bundle: "bench",
    styles: ["shared", "bench"],
    title: "Benchmark",
    label: `benchmark panel for ${results.kernel}`,
  };
  panels.show(key, `Benchmark: ${results.kernel}`, options, message);
}

/** The results file: the argument (a URI or path), the active JSON editor's, or one picked. */
async function resultsUri(arg: unknown): Promise<vscode.Uri | undefined> {
  if (arg instanceof vscode.Uri) return arg;
  if (typeof arg === "string" && arg !== "")
    return arg.includes("://") ? vscode.Uri.parse(arg) : vscode.Uri.file(arg);
  if (vscode.window.activeTextEditor?.document.fileName.endsWith(".json"))
    return vscode.window.activeTextEditor.document.uri;
  return (
    await vscode.window.showOpenDialog({
      canSelectMany: false,
      filters: { "Benchmark results": ["json"] },
      openLabel: "Open results",
    })
  )?.[0];
}

async function openResultsFile(
  ctx: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  arg: unknown,
): Promise<void> {
  const uri = await resultsUri(arg);
  if (!uri) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(uri.fsPath, "utf8"));
  } catch (e) {
    void vscode.window.showErrorMessage(`CUDA Kernel Dev: cannot read ${uri.fsPath}: ${errorMessage(e)}`);
    return;
  }
  if (!isBenchRunResults(parsed)) {
    void vscode.window.showErrorMessage(
      `CUDA Kernel Dev: ${uri.fsPath} is not a benchmark results file (from "cuda-kernel-dev bench --json")`,
    );
    return;
  }
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const history = folder
    ? (await readHistory(folder).catch(() => ({ entries: [] as HistoryEntry[] }))).entries
    : [];
  showResults(ctx, log, parsed, history);
}

/** The bench bundle's results panels and the command that opens a results file. */
export function activate(
  ctx: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
): Commands<typeof OPEN_RESULTS_COMMAND> {
  ctx.subscriptions.push(panels);
  return { [OPEN_RESULTS_COMMAND]: (arg) => openResultsFile(ctx, log, arg) };
}
