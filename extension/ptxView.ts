// "Show PTX" / "Show SASS" for the kernel at the cursor: compiles the file (PTX: nvcc -ptx -lineinfo;
// SASS: a -lineinfo cubin through nvdisasm -g, or cuobjdump -sass, where the toolkit has them), opens
// the result read-only beside the source at the kernel, and highlights the lines that came from the
// source line under the cursor. Saving the source regenerates an open view.
import { basename } from "node:path";
import * as vscode from "vscode";
import { asmLinesFor, ptxLineMap, sassLineMap, toRuns, type AsmLineMap } from "../server/compiler/asmLines";
import { projectFlags } from "../server/compiler/compileFile";
import { asmOutput, AsmToolError, type AsmKind } from "../server/compiler/asmOutput";
import { NvccNotFoundError, resolveNvcc } from "../server/compiler/nvcc";
import { findKernelLine } from "../server/compiler/nvccPlacement";
import { kernelDisplayName } from "../server/compiler/demangle";
import { formatArch, parseArchList } from "../server/lint/arch";
import { resolveTargets } from "../server/lint/targets";

const SCHEME = "cuda-kernel-dev-asm";
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
  const cfg = vscode.workspace.getConfiguration("cudaKernelDev", doc.uri);
  const nvcc = await resolveNvcc(cfg.get<string>("nvcc.path"));
  const folder = vscode.workspace.getWorkspaceFolder(doc.uri)?.uri.fsPath;
  const flags = projectFlags(
    doc.uri.fsPath,
    {
      includePaths: cfg.get<string[]>("nvcc.includePaths") ?? [],
      extraArgs: cfg.get<string[]>("nvcc.extraArgs") ?? [],
    },
    folder,
  );
  const timeoutMs = Math.max(1, cfg.get<number>("nvcc.timeoutSeconds") ?? 120) * 1000;
  return (await asmOutput({ kind, file: doc.uri.fsPath, arch, nvcc, flags, timeoutMs })).text;
}

export function activate(ctx: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  const views = new Map<string, AsmView>();
  const changed = new vscode.EventEmitter<vscode.Uri>();
  const highlight = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor("editor.rangeHighlightBackground"),
    isWholeLine: true,
    overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.findMatchForeground"),
    overviewRulerLane: vscode.OverviewRulerLane.Center,
  });
  ctx.subscriptions.push(changed, highlight);
  ctx.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, {
      onDidChange: changed.event,
      provideTextDocumentContent: (uri) => views.get(uri.toString())?.text ?? "(closed: run Show PTX again)",
    }),
  );

  const pickArch = async (doc: vscode.TextDocument): Promise<string | undefined> => {
    const cfg = vscode.workspace.getConfiguration("cudaKernelDev", doc.uri);
    const folder = vscode.workspace.getWorkspaceFolder(doc.uri)?.uri.fsPath;
    const targets = resolveTargets({
      file: doc.uri.fsPath,
      explicit: { archs: parseArchList(cfg.get<string[]>("targets") ?? []), source: "setting" },
      ...(folder ? { stopAt: folder } : {}),
    });
    const archs = targets.archs.map(formatArch);
    if (archs.length === 1) return archs[0];
    return vscode.window.showQuickPick([...archs].reverse(), { title: "Architecture to show" });
  };

  /** Highlights, in each open view of `source`, the lines that came from the cursor's line. */
  const sync = (editor: vscode.TextEditor): void => {
    const line = editor.selection.active.line + 1;
    for (const view of views.values()) {
      if (view.source.toString() !== editor.document.uri.toString()) continue;
      const asmEditor = vscode.window.visibleTextEditors.find(
        (e) => e.document.uri.toString() === view.uri.toString(),
      );
      if (!asmEditor) continue;
      const runs = toRuns(asmLinesFor(view.map, editor.document.uri.fsPath, line));
      asmEditor.setDecorations(
        highlight,
        runs.map(([a, b]) => new vscode.Range(a, 0, b, 0)),
      );
      const first = runs[0];
      if (first)
        asmEditor.revealRange(
          new vscode.Range(first[0], 0, first[1], 0),
          vscode.TextEditorRevealType.InCenterIfOutsideViewport,
        );
    }
  };

  const show = async (kind: Kind): Promise<void> => {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.languageId !== "cuda-cpp" || editor.document.uri.scheme !== "file") {
      void vscode.window.showInformationMessage(
        `CUDA Kernel Dev: put the cursor in a kernel of a saved .cu file to see its ${kind.toUpperCase()}.`,
      );
      return;
    }
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage("CUDA Kernel Dev: this runs nvcc; trust this workspace first.");
      return;
    }
    const doc = editor.document;
    if (doc.isDirty) await doc.save();
    const arch = await pickArch(doc);
    if (!arch) return;
    let text: string;
    try {
      text = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: `nvcc: ${kind.toUpperCase()} for ${arch}` },
        () => generate(kind, doc, arch),
      );
    } catch (err) {
      if (err instanceof AsmToolError || err instanceof NvccNotFoundError) {
        void vscode.window.showErrorMessage(`CUDA Kernel Dev: ${err.message}`);
        return;
      }
      throw err;
    }
    const map = kind === "ptx" ? ptxLineMap(text) : sassLineMap(text);
    const uri = vscode.Uri.from({
      scheme: SCHEME,
      path: `/${basename(doc.uri.fsPath)}.${arch}.${kind === "ptx" ? "ptx" : "cuasm"}`,
      query: doc.uri.toString(),
    });
    views.set(uri.toString(), { uri, source: doc.uri, kind, arch, text, map });
    changed.fire(uri);
    const asmDoc = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(asmDoc, kind === "ptx" ? "ptx" : "cuda-sass");
    const asmEditor = await vscode.window.showTextDocument(asmDoc, {
      viewColumn: vscode.ViewColumn.Beside,
      preserveFocus: true,
      preview: false,
    });
    const symbol = kernelAtCursor(map, doc.getText(), editor.selection.active.line);
    const range = symbol ? map.functions.get(symbol) : undefined;
    if (range)
      asmEditor.revealRange(
        new vscode.Range(range.start, 0, range.start, 0),
        vscode.TextEditorRevealType.AtTop,
      );
    log.info(
      `${kind} for ${vscode.workspace.asRelativePath(doc.uri)} (${arch}): ${map.functions.size} functions${symbol ? `, at ${kernelDisplayName(symbol)}` : ""}`,
    );
    sync(editor);
  };

  ctx.subscriptions.push(
    vscode.commands.registerCommand("cudaKernelDev.showPtx", () => show("ptx")),
    vscode.commands.registerCommand("cudaKernelDev.showSass", () => show("sass")),
    vscode.window.onDidChangeTextEditorSelection((e) => {
      if (e.textEditor.document.languageId === "cuda-cpp" && views.size) sync(e.textEditor);
    }),
    vscode.workspace.onDidCloseTextDocument((d) => {
      if (d.uri.scheme === SCHEME) views.delete(d.uri.toString());
    }),
    vscode.workspace.onDidSaveTextDocument(async (d) => {
      // Regenerate open views of a saved source, so the highlight keeps matching.
      for (const view of [...views.values()].filter((v) => v.source.toString() === d.uri.toString())) {
        try {
          view.text = await generate(view.kind, d, view.arch);
          view.map = view.kind === "ptx" ? ptxLineMap(view.text) : sassLineMap(view.text);
          changed.fire(view.uri);
        } catch (err) {
          log.warn(`${view.kind} refresh failed: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    }),
  );
}
