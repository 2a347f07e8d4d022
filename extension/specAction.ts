// "Write a benchmark spec": a code action on a kernel without one, drafting `// @bench` lines from the
// kernel's signature (server/bench/specDraft.ts) right above its declaration.
import * as vscode from "vscode";
import { type KernelInfo, scanKernels } from "../server/bench/kernelScan";
import { findKernel } from "../server/bench/runBench";
import { draftSpec } from "../server/bench/specDraft";
import { WRITE_SPEC_COMMAND } from "./contributions";
import { isKernelRef } from "./kernelRef";

function specEdit(doc: vscode.TextDocument, k: KernelInfo): vscode.WorkspaceEdit {
  const indent = /^\s*/.exec(doc.lineAt(k.declLine).text)![0];
  const edit = new vscode.WorkspaceEdit();
  edit.insert(
    doc.uri,
    new vscode.Position(k.declLine, 0),
    draftSpec(k)
      .map((l) => `${indent}${l}\n`)
      .join(""),
  );
  return edit;
}

class SpecActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.RefactorRewrite];

  provideCodeActions(doc: vscode.TextDocument, range: vscode.Range): vscode.CodeAction[] {
    const line = range.start.line;
    // Offered on the kernel's head: from `template <...>` / `__global__` down to its name.
    const k = scanKernels(doc.getText()).find(
      (x) => x.hasBody && x.specLines.length === 0 && line >= x.declLine && line <= x.nameSpan.startLine,
    );
    if (!k) return [];
    const action = new vscode.CodeAction(
      `Write a benchmark spec for ${k.name}`,
      vscode.CodeActionKind.RefactorRewrite,
    );
    action.edit = specEdit(doc, k);
    return [action];
  }
}

async function writeSpec(arg: unknown): Promise<void> {
  if (!isKernelRef(arg)) return;
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(arg.uri));
  const k = findKernel(scanKernels(doc.getText()), arg.kernel);
  if (!k) return;
  if (k.specLines.length > 0) {
    void vscode.window.showInformationMessage(`CUDA Kernel Dev: ${k.name} already has a @bench spec.`);
    return;
  }
  await vscode.workspace.applyEdit(specEdit(doc, k));
  const editor = await vscode.window.showTextDocument(doc);
  editor.revealRange(new vscode.Range(k.declLine, 0, k.declLine + draftSpec(k).length, 0));
}

export function activate(ctx: vscode.ExtensionContext): void {
  ctx.subscriptions.push(
    vscode.languages.registerCodeActionsProvider({ language: "cuda-cpp" }, new SpecActions(), {
      providedCodeActionKinds: SpecActions.kinds,
    }),
    vscode.commands.registerCommand(WRITE_SPEC_COMMAND, writeSpec),
  );
}
