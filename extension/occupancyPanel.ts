// The Occupancy panel: one webview beside the source, showing the kernel a lens was clicked on (or
// the one at the cursor) with a tab per target architecture. The panel computes the curves itself;
// this side sends the kernel's resources from the last compile.
import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import { findKernelLine } from "../server/compiler/nvccPlacement";
import { isFromPanel, type OccupancyPoint, type ShowMessage } from "../webview/occupancy/protocol";
import type { CompileResults, CompileService } from "./nvccDiagnostics";
import type { OccupancyTarget } from "./resources";

const DEFAULT_BLOCK = 256;

/** The kernel whose definition is at or above `line` (the one the cursor is in), by symbol. */
function kernelAt(results: CompileResults, text: string, line: number): string | undefined {
  let best: { symbol: string; line: number } | undefined;
  for (const r of results.results)
    for (const k of r.kernels) {
      const at = findKernelLine(text, k.symbol);
      if (at !== undefined && at <= line && (!best || at > best.line)) best = { symbol: k.symbol, line: at };
    }
  return best?.symbol;
}

function showMessage(results: CompileResults, symbol: string): ShowMessage | undefined {
  const points: OccupancyPoint[] = [];
  let name = symbol;
  for (const r of results.results) {
    const k = r.kernels.find((x) => x.symbol === symbol);
    if (!k) continue;
    name = k.name;
    // ptxas's barrier count, 0 included: the H100 sweep shows the driver uses it as reported.
    points.push({
      arch: k.arch,
      regs: k.registers,
      staticSmem: k.sharedBytes,
      barriers: k.barriers,
      block: DEFAULT_BLOCK,
      dynamicSmem: 0,
    });
  }
  if (points.length === 0) return undefined;
  return { type: "show", kernel: name, file: vscode.workspace.asRelativePath(results.uri), points };
}

function html(webview: vscode.Webview, script: vscode.Uri): string {
  const nonce = randomBytes(16).toString("base64");
  const csp = [
    `default-src 'none'`,
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    `img-src ${webview.cspSource} data:`,
    `font-src ${webview.cspSource}`,
  ].join("; ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>Occupancy</title>
<style nonce="${nonce}">
  body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); padding: 0 16px 16px; }
  header { display: flex; gap: 12px; align-items: baseline; }
  h2 { font-size: 1.3em; margin: 12px 0 4px; }
  h3 { font-size: 1em; margin: 4px 0; font-weight: 600; }
  .muted { color: var(--vscode-descriptionForeground); }
  .tabs { display: flex; gap: 4px; border-bottom: 1px solid var(--vscode-panel-border); margin: 8px 0; }
  .tab { background: none; color: var(--vscode-foreground); border: none; border-bottom: 2px solid transparent; padding: 6px 12px; cursor: pointer; font: inherit; }
  .tab.active { border-bottom-color: var(--vscode-focusBorder); font-weight: 600; }
  .inputs { display: flex; flex-wrap: wrap; gap: 12px; margin: 8px 0; }
  .field { display: flex; flex-direction: column; gap: 2px; font-size: 0.9em; }
  .field input { width: 9em; background: var(--vscode-input-background); color: var(--vscode-input-foreground); border: 1px solid var(--vscode-input-border, transparent); padding: 3px 4px; }
  .summary { display: flex; flex-wrap: wrap; gap: 24px; align-items: center; margin: 8px 0 16px; }
  .big { font-size: 2.2em; font-weight: 600; }
  .limit { color: var(--vscode-charts-orange); font-weight: 600; }
  .error { color: var(--vscode-errorForeground); font-weight: 600; }
  table { border-collapse: collapse; font-size: 0.9em; }
  td, th { padding: 2px 10px; border-bottom: 1px solid var(--vscode-panel-border); text-align: left; }
  .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(360px, 1fr)); gap: 16px; }
  .chart { height: 260px; display: flex; flex-direction: column; }
  .chart canvas { flex: 1; min-height: 0; }
</style>
</head>
<body>
<main id="root"></main>
<script nonce="${nonce}" src="${webview.asWebviewUri(script).toString()}"></script>
</body>
</html>`;
}

export function activate(
  ctx: vscode.ExtensionContext,
  compiles: CompileService,
  log: vscode.LogOutputChannel,
): void {
  let panel: vscode.WebviewPanel | undefined;
  let ready = false;
  let shown: { uri: string; symbol: string } | undefined;
  let pending: ShowMessage | undefined;
  const root = vscode.Uri.joinPath(ctx.extensionUri, "dist", "webview");

  const post = (msg: ShowMessage): void => {
    pending = msg;
    if (panel && ready) void panel.webview.postMessage(msg);
  };

  const open = (msg: ShowMessage): void => {
    if (!panel) {
      panel = vscode.window.createWebviewPanel(
        "cudaKernelDev.occupancy",
        "Occupancy",
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        { enableScripts: true, localResourceRoots: [root] },
      );
      ready = false;
      panel.webview.onDidReceiveMessage((m: unknown) => {
        if (!isFromPanel(m)) {
          log.warn("occupancy panel: ignored a message of unknown shape");
          return;
        }
        if (m.type === "ready") {
          ready = true;
          if (pending && panel) void panel.webview.postMessage(pending);
        } else log.error(`occupancy panel: ${m.message}`);
      });
      panel.onDidDispose(() => {
        panel = undefined;
        shown = undefined;
      });
      panel.webview.html = html(panel.webview, vscode.Uri.joinPath(root, "occupancy.js"));
    } else panel.reveal(vscode.ViewColumn.Beside, true);
    panel.title = `Occupancy: ${msg.kernel}`;
    post(msg);
  };

  ctx.subscriptions.push(
    vscode.commands.registerCommand("cudaKernelDev.showOccupancy", async (target?: OccupancyTarget) => {
      let uri: vscode.Uri | undefined = target
        ? vscode.Uri.parse(target.uri)
        : vscode.window.activeTextEditor?.document.uri;
      const editor = vscode.window.activeTextEditor;
      if (!uri || (!target && editor?.document.languageId !== "cuda-cpp")) {
        void vscode.window.showInformationMessage(
          "CUDA Kernel Dev: put the cursor in a kernel of a .cu file to see its occupancy.",
        );
        return;
      }
      const doc = await vscode.workspace.openTextDocument(uri);
      uri = doc.uri;
      let results = compiles.latest(uri);
      if (!results) {
        if (!vscode.workspace.isTrusted) {
          void vscode.window.showWarningMessage(
            "CUDA Kernel Dev: occupancy needs a compile (nvcc); trust this workspace first.",
          );
          return;
        }
        results = await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Window, title: "nvcc: compiling for occupancy" },
          () => compiles.compile(doc),
        );
      }
      if (!results) return;
      const symbol =
        target?.symbol ??
        (editor ? kernelAt(results, doc.getText(), editor.selection.active.line) : undefined);
      const msg = symbol ? showMessage(results, symbol) : undefined;
      if (!msg || !symbol) {
        const failed = results.results.some((r) => r.run.exitCode !== 0);
        void vscode.window.showInformationMessage(
          failed
            ? "CUDA Kernel Dev: the file does not compile; see the Problems panel."
            : "CUDA Kernel Dev: no kernel at the cursor.",
        );
        return;
      }
      shown = { uri: uri.toString(), symbol };
      open(msg);
    }),
    compiles.onDidCompile((c) => {
      if (!panel || !shown || shown.uri !== c.uri.toString()) return;
      const msg = showMessage(c, shown.symbol);
      if (msg) post(msg);
    }),
    {
      dispose: () => {
        panel?.dispose();
      },
    },
  );
}
