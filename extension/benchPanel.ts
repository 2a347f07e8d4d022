// The benchmark results panel's host side: one webview per kernel, locked down (CSP default-src
// 'none', a fresh nonce per load, scripts only from dist/webview), fed after its `ready` message, and
// the command that opens a saved results JSON (`cudaKernelDev.openBenchResults`).
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import * as vscode from "vscode";
import { readHistory } from "../server/bench/history";
import { type BenchRunResults, type HistoryEntry, isBenchRunResults } from "../server/bench/results";
import { type HostMessage, isPanelMessage } from "../webview/bench/protocol";

export const OPEN_RESULTS_COMMAND = "cudaKernelDev.openBenchResults";

const STYLE = `
body { color: var(--vscode-foreground); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); padding: 0 16px 24px; }
h1 { font-size: 1.3em; font-family: var(--vscode-editor-font-family); }
h2 { font-size: 1.05em; margin: 4px 0; }
dl { display: grid; grid-template-columns: max-content auto; gap: 2px 12px; margin: 0 0 8px; }
dt { opacity: 0.7; } dd { margin: 0; font-family: var(--vscode-editor-font-family); }
table { border-collapse: collapse; margin: 12px 0; font-family: var(--vscode-editor-font-family); }
th, td { padding: 3px 10px; text-align: right; border-bottom: 1px solid var(--vscode-editorWidget-border, #444); }
th:first-child, td:first-child { text-align: left; }
.ok { color: var(--vscode-testing-iconPassed, #73c991); } .bad { color: var(--vscode-errorForeground, #f14c4c); }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 16px; }
.canvas { position: relative; height: 260px; }
`;

interface PanelState {
  panel: vscode.WebviewPanel;
  message: HostMessage;
  ready: boolean;
}

const panels = new Map<string, PanelState>();

function html(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = randomBytes(18).toString("base64");
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, "dist", "webview", "bench.js"));
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource} data:`,
    `style-src 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
  ].join("; ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>Benchmark</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<div id="root"><p>Loading…</p></div>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}

/** Shows results in the kernel's panel (created, or revealed and updated). */
export function showResults(
  ctx: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  results: BenchRunResults,
  history: HistoryEntry[],
): void {
  const key = `${results.file}::${results.kernel}`;
  const message: HostMessage = { type: "show", results, history };
  const existing = panels.get(key);
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
