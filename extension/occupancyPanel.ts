// The Occupancy panel: one webview beside the source (hosted by webviewHost.ts), showing the kernel a
// lens was clicked on (or the one at the cursor) with a tab per target architecture. The panel
// computes the curves itself; this side sends the kernel's resources from the last compile, again
// after each compile of its file.
import * as vscode from "vscode";
import { findKernelLine } from "../server/compiler/nvccPlacement";
import type { OccupancyPoint, ShowMessage } from "../webview/occupancy/protocol";
import { SHOW_OCCUPANCY_COMMAND, type Commands } from "./contributions";
import type { CompileResults, CompileService } from "./nvccDiagnostics";
import type { OccupancyTarget } from "./resources";
import { WebviewHost } from "./webviewHost";
import { requireTrust } from "./workspaceTrust";

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

/** The one Occupancy panel, and which kernel of which file it shows. */
class OccupancyPanel {
  private host: WebviewHost<ShowMessage> | undefined;
  private shown: { uri: string; symbol: string } | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  open(uri: vscode.Uri, symbol: string, msg: ShowMessage): void {
    this.shown = { uri: uri.toString(), symbol };
    const title = `Occupancy: ${msg.kernel}`;
    if (this.host) {
      this.host.panel.reveal(vscode.ViewColumn.Beside, true);
      this.host.panel.title = title;
      this.host.show(msg);
      return;
    }
    const host = WebviewHost.open(
      title,
      {
        extensionUri: this.extensionUri,
        log: this.log,
        bundle: "occupancy",
        styles: ["occupancy"],
        title: "Occupancy",
        label: "occupancy panel",
      },
      msg,
    );
    host.panel.onDidDispose(() => {
      this.host = undefined;
      this.shown = undefined;
    });
    this.host = host;
  }

  /** A new compile of the shown kernel's file: its figures again. */
  compiled(c: CompileResults): void {
    if (!this.host || !this.shown || this.shown.uri !== c.uri.toString()) return;
    const msg = showMessage(c, this.shown.symbol);
    if (msg) this.host.show(msg);
  }

  dispose(): void {
    this.host?.dispose();
  }
}

/** The document of the lens's kernel or the active .cu editor, and its latest compile (compiling if none). */
async function compiledDocument(
  compiles: CompileService,
  target: OccupancyTarget | undefined,
): Promise<{ doc: vscode.TextDocument; results: CompileResults } | undefined> {
  const uri = target ? vscode.Uri.parse(target.uri) : vscode.window.activeTextEditor?.document.uri;
  if (!uri || (!target && vscode.window.activeTextEditor?.document.languageId !== "cuda-cpp")) {
    void vscode.window.showInformationMessage(
      "CUDA Kernel Dev: put the cursor in a kernel of a .cu file to see its occupancy.",
    );
    return undefined;
  }
  const doc = await vscode.workspace.openTextDocument(uri);
  let results = compiles.latest(doc.uri);
  if (!results) {
    if (!requireTrust("occupancy needs a compile (nvcc)")) return undefined;
    results = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: "nvcc: compiling for occupancy" },
      () => compiles.compile(doc),
    );
  }
  return results && { doc, results };
}

async function showOccupancy(
  panel: OccupancyPanel,
  compiles: CompileService,
  target: OccupancyTarget | undefined,
): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const compiled = await compiledDocument(compiles, target);
  if (!compiled) return;
  const { doc, results } = compiled;
  const symbol =
    target?.symbol ?? (editor ? kernelAt(results, doc.getText(), editor.selection.active.line) : undefined);
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
  panel.open(doc.uri, symbol, msg);
}

/** The nvcc bundle's Occupancy panel, following `compiles`, and its command. */
export function activate(
  ctx: vscode.ExtensionContext,
  compiles: CompileService,
  log: vscode.LogOutputChannel,
): Commands<typeof SHOW_OCCUPANCY_COMMAND> {
  const panel = new OccupancyPanel(ctx.extensionUri, log);
  ctx.subscriptions.push(
    compiles.onDidCompile((c) => panel.compiled(c)),
    panel,
  );
  return {
    // A resource lens passes its kernel; the palette passes nothing (the kernel at the cursor).
    [SHOW_OCCUPANCY_COMMAND]: (target) =>
      showOccupancy(panel, compiles, target as OccupancyTarget | undefined),
  };
}
