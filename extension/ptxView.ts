// "Show PTX" / "Show SASS" for the kernel at the cursor: compiles the file (PTX: nvcc -ptx -lineinfo;
// SASS: a -lineinfo cubin through nvdisasm -g, or cuobjdump -sass, where the toolkit has them), opens
// the result read-only beside the source at the kernel, and highlights the lines that came from the
// source line under the cursor. Saving the source regenerates an open view.
import { basename } from "node:path";
import * as vscode from "vscode";
import { asmLinesFor, ptxLineMap, sassLineMap, toRuns, type AsmLineMap } from "../server/compiler/asmLines";
import { asmOutput, AsmToolError, type AsmKind } from "../server/compiler/asmOutput";
import { NvccNotFoundError } from "../server/compiler/nvcc";
import { findKernelLine } from "../server/compiler/nvccPlacement";
import { kernelDisplayName } from "../server/compiler/demangle";
import { errorMessage } from "../server/util/errorMessage";
import { ASM_SCHEME, SHOW_PTX_COMMAND, SHOW_SASS_COMMAND, type Commands } from "./contributions";
import { nvccSetup, targetArchs } from "./settings";
import { requireTrust } from "./workspaceTrust";

type Kind = AsmKind;

interface AsmView {
  uri: vscode.Uri;
  source: vscode.Uri;
  kind: Kind;
  arch: string;
  text: string;
  map: AsmLineMap;
}

/** The kernel symbol whose definition is at or above `line`, among the functions of the output. */
function kernelAtCursor(map: AsmLineMap, sourceText: string, line: number): string | undefined {
  let best: { symbol: string; line: number } | undefined;
  for (const symbol of map.functions.keys()) {
    const at = findKernelLine(sourceText, symbol);
    if (at !== undefined && at <= line && (!best || at > best.line)) best = { symbol, line: at };
  }
  return best?.symbol;
}

async function generate(kind: Kind, doc: vscode.TextDocument, arch: string): Promise<string> {
  const { nvcc, flags, timeoutMs } = await nvccSetup(doc.uri);
  return (await asmOutput({ kind, file: doc.uri.fsPath, arch, nvcc, flags, timeoutMs })).text;
}

const lineMap = (kind: Kind, text: string): AsmLineMap =>
  kind === "ptx" ? ptxLineMap(text) : sassLineMap(text);

/** The architecture to show: the only target, or the one picked (newest first). */
async function pickArch(doc: vscode.TextDocument): Promise<string | undefined> {
  const archs = targetArchs(doc.uri);
  if (archs.length === 1) return archs[0];
  return vscode.window.showQuickPick([...archs].reverse(), { title: "Architecture to show" });
}

/** The open PTX/SASS views: their text (served by the entry's content provider), line maps and highlights. */
export class AsmViews implements vscode.Disposable {
  private readonly views = new Map<string, AsmView>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly highlight = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor("editor.rangeHighlightBackground"),
    isWholeLine: true,
    overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.findMatchForeground"),
    overviewRulerLane: vscode.OverviewRulerLane.Center,
  });
  /** A view's text changed: the entry's content provider for ASM_SCHEME passes it on. */
  readonly onDidChange = this.changed.event;
  /** The editor events the views follow. */
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly log: vscode.LogOutputChannel) {
    this.subscriptions = [
      vscode.window.onDidChangeTextEditorSelection((e) => this.sync(e.textEditor)),
      vscode.workspace.onDidCloseTextDocument((d) => {
        if (d.uri.scheme === ASM_SCHEME) this.views.delete(d.uri.toString());
      }),
      vscode.workspace.onDidSaveTextDocument((d) => this.refresh(d)),
    ];
  }

  /** A view's text, for the content provider; undefined once its document was closed. */
  text(uri: vscode.Uri): string | undefined {
    return this.views.get(uri.toString())?.text;
  }

  /** Show PTX / Show SASS for the kernel at the cursor. */
  async show(kind: Kind): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.languageId !== "cuda-cpp" || editor.document.uri.scheme !== "file") {
      void vscode.window.showInformationMessage(
        `CUDA Kernel Dev: put the cursor in a kernel of a saved .cu file to see its ${kind.toUpperCase()}.`,
      );
      return;
    }
    if (!requireTrust("this runs nvcc")) return;
    const doc = editor.document;
    if (doc.isDirty) await doc.save();
    const arch = await pickArch(doc);
    if (!arch) return;
    const text = await this.compile(kind, doc, arch);
    if (text === undefined) return;
    const view = this.add(kind, doc, arch, text);
    const asmEditor = await this.open(view);
    this.reveal(view, asmEditor, editor);
    this.sync(editor);
  }

  /** The output, or undefined after a message when nvcc or the tool failed in a way the user can act on. */
  private async compile(kind: Kind, doc: vscode.TextDocument, arch: string): Promise<string | undefined> {
    try {
      return await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: `nvcc: ${kind.toUpperCase()} for ${arch}` },
        () => generate(kind, doc, arch),
      );
    } catch (err) {
      if (err instanceof AsmToolError || err instanceof NvccNotFoundError) {
        void vscode.window.showErrorMessage(`CUDA Kernel Dev: ${err.message}`);
        return undefined;
      }
      throw err;
    }
  }

  private add(kind: Kind, doc: vscode.TextDocument, arch: string, text: string): AsmView {
    const uri = vscode.Uri.from({
      scheme: ASM_SCHEME,
      path: `/${basename(doc.uri.fsPath)}.${arch}.${kind === "ptx" ? "ptx" : "cuasm"}`,
      query: doc.uri.toString(),
    });
    const view: AsmView = { uri, source: doc.uri, kind, arch, text, map: lineMap(kind, text) };
    this.views.set(uri.toString(), view);
    this.changed.fire(uri);
    return view;
  }

  private async open(view: AsmView): Promise<vscode.TextEditor> {
    const asmDoc = await vscode.workspace.openTextDocument(view.uri);
    await vscode.languages.setTextDocumentLanguage(asmDoc, view.kind === "ptx" ? "ptx" : "cuda-sass");
    return vscode.window.showTextDocument(asmDoc, {
      viewColumn: vscode.ViewColumn.Beside,
      preserveFocus: true,
      preview: false,
    });
  }

  /** Scrolls the view to the kernel the cursor is in. */
  private reveal(view: AsmView, asmEditor: vscode.TextEditor, editor: vscode.TextEditor): void {
    const symbol = kernelAtCursor(view.map, editor.document.getText(), editor.selection.active.line);
    const range = symbol ? view.map.functions.get(symbol) : undefined;
    if (range)
      asmEditor.revealRange(
        new vscode.Range(range.start, 0, range.start, 0),
        vscode.TextEditorRevealType.AtTop,
      );
    this.log.info(
      `${view.kind} for ${vscode.workspace.asRelativePath(view.source)} (${view.arch}): ${view.map.functions.size} functions${symbol ? `, at ${kernelDisplayName(symbol)}` : ""}`,
    );
  }

  /** Highlights, in each open view of `source`, the lines that came from the cursor's line. */
  private sync(editor: vscode.TextEditor): void {
    if (editor.document.languageId !== "cuda-cpp" || this.views.size === 0) return;
    const line = editor.selection.active.line + 1;
    for (const view of this.views.values()) {
      if (view.source.toString() !== editor.document.uri.toString()) continue;
      const asmEditor = vscode.window.visibleTextEditors.find(
        (e) => e.document.uri.toString() === view.uri.toString(),
      );
      if (!asmEditor) continue;
      const runs = toRuns(asmLinesFor(view.map, editor.document.uri.fsPath, line));
      asmEditor.setDecorations(
        this.highlight,
        runs.map(([a, b]) => new vscode.Range(a, 0, b, 0)),
      );
      const first = runs[0];
      if (first)
        asmEditor.revealRange(
          new vscode.Range(first[0], 0, first[1], 0),
          vscode.TextEditorRevealType.InCenterIfOutsideViewport,
        );
    }
  }

  /** Regenerates the open views of a saved source, so the highlight keeps matching. */
  private async refresh(saved: vscode.TextDocument): Promise<void> {
    for (const view of [...this.views.values()].filter((v) => v.source.toString() === saved.uri.toString())) {
      try {
        view.text = await generate(view.kind, saved, view.arch);
        view.map = lineMap(view.kind, view.text);
        this.changed.fire(view.uri);
      } catch (err) {
        this.log.warn(`${view.kind} refresh failed: ${errorMessage(err)}`);
      }
    }
  }

  dispose(): void {
    for (const d of [...this.subscriptions, this.changed, this.highlight]) d.dispose();
  }
}

/** The nvcc bundle's views and their commands; the entry serves their text (extension/lazyFeatures.ts). */
export function activate(
  ctx: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
): { views: AsmViews; commands: Commands<typeof SHOW_PTX_COMMAND | typeof SHOW_SASS_COMMAND> } {
  const views = new AsmViews(log);
  ctx.subscriptions.push(views);
  return {
    views,
    commands: {
      [SHOW_PTX_COMMAND]: () => views.show("ptx"),
      [SHOW_SASS_COMMAND]: () => views.show("sass"),
    },
  };
}
