// The Occupancy panel: one webview beside the source, showing the kernel a lens was clicked on (or
// the one at the cursor) with a tab per target architecture. The panel computes the curves itself;
// this side sends the kernel's resources from the last compile.
import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import { findKernelLine } from "../server/compiler/nvccPlacement";
import { isFromPanel, type OccupancyPoint, type ShowMessage } from "../webview/occupancy/protocol";
import type { CompileResults, CompileService } from "./nvccDiagnostics";
import { occupancyHtml } from "./occupancyPanelHtml";
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
  return occupancyHtml(
    webview.cspSource,
    webview.asWebviewUri(script).toString(),
    randomBytes(16).toString("base64"),
  );
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
