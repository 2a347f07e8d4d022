// The benchmark results panel's host side: one webview per kernel, locked down (CSP default-src
// 'none', a fresh nonce per load, scripts only from dist/webview), fed after its `ready` message, and
// the command that opens a saved results JSON (`cudaKernelDev.openBenchResults`).
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import * as vscode from "vscode";
import { readHistory } from "../server/bench/history";
import { type BenchRunResults, type HistoryEntry, isBenchRunResults } from "../server/bench/results";
import { type HostMessage, isPanelMessage } from "../webview/bench/protocol";
import { panelHtml } from "./benchPanelHtml";

export const OPEN_RESULTS_COMMAND = "cudaKernelDev.openBenchResults";

interface PanelState {
  panel: vscode.WebviewPanel;
  message: HostMessage;
  ready: boolean;
}

const panels = new Map<string, PanelState>();

function html(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, "dist", "webview", "bench.js"));
  return panelHtml(webview.cspSource, script.toString(), randomBytes(18).toString("base64"));
}

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
  const existing = panels.get(key);
  const message: HostMessage = {
    type: "show",
    results,
    history: history ?? (existing?.message.type === "show" ? existing.message.history : []),
  };
  if (existing) {
    existing.message = message;
    existing.panel.reveal(undefined, true);
    if (existing.ready) void existing.panel.webview.postMessage(message);
    return;
  }
  const panel = vscode.window.createWebviewPanel(
    "cudaKernelDev.bench",
    `Benchmark: ${results.kernel}`,
    { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
    {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(ctx.extensionUri, "dist", "webview")],
    },
  );
  const state: PanelState = { panel, message, ready: false };
  panels.set(key, state);
  panel.webview.onDidReceiveMessage((m: unknown) => {
    if (!isPanelMessage(m)) {
      log.warn(`benchmark panel: ignored a malformed message`);
      return;
    }
    if (m.type === "ready") {
      // Also after the panel was hidden and its page reloaded: send the state again.
      state.ready = true;
      void panel.webview.postMessage(state.message);
    } else if (m.type === "rendered")
      log.info(`benchmark panel for ${results.kernel}: charts ${m.charts.join(", ")}`);
    else log.error(`benchmark panel for ${results.kernel} failed to render: ${m.message}`);
  });
  panel.onDidDispose(() => panels.delete(key));
  panel.webview.html = html(panel.webview, ctx.extensionUri);
}

async function openResultsFile(
  ctx: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  arg: unknown,
): Promise<void> {
  let uri: vscode.Uri | undefined;
  if (arg instanceof vscode.Uri) uri = arg;
  else if (typeof arg === "string" && arg !== "")
    uri = arg.includes("://") ? vscode.Uri.parse(arg) : vscode.Uri.file(arg);
  else if (vscode.window.activeTextEditor?.document.fileName.endsWith(".json"))
    uri = vscode.window.activeTextEditor.document.uri;
  else
    uri = (
      await vscode.window.showOpenDialog({
        canSelectMany: false,
        filters: { "Benchmark results": ["json"] },
        openLabel: "Open results",
      })
    )?.[0];
  if (!uri) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(uri.fsPath, "utf8"));
  } catch (e) {
    void vscode.window.showErrorMessage(
      `CUDA Kernel Dev: cannot read ${uri.fsPath}: ${e instanceof Error ? e.message : String(e)}`,
    );
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

export function activate(ctx: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  ctx.subscriptions.push(
    vscode.commands.registerCommand(OPEN_RESULTS_COMMAND, (arg: unknown) => openResultsFile(ctx, log, arg)),
    {
      dispose: () => {
        for (const p of panels.values()) p.panel.dispose();
      },
    },
  );
}
