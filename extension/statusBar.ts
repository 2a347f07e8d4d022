// The status-bar item: shows the target architectures in force for the active CUDA file and where they came from.
import * as vscode from "vscode";
import type { TargetsParams } from "../server/protocol";

export interface TargetsStatus {
  show(targets: TargetsParams): void;
}

export function activate(ctx: vscode.ExtensionContext): TargetsStatus {
  const item = vscode.window.createStatusBarItem("targets", vscode.StatusBarAlignment.Right, 100);
  item.name = "CUDA Kernel Dev: target architectures";
  item.text = "$(chip) CUDA Kernel Dev";
  item.tooltip = "CUDA Kernel Dev is active";
  ctx.subscriptions.push(item);

  const byUri = new Map<string, TargetsParams>();
  const refresh = (): void => {
    const doc = vscode.window.activeTextEditor?.document;
    if (!doc || doc.languageId !== "cuda-cpp") {
      item.hide();
      return;
    }
    const targets = byUri.get(doc.uri.toString());
    if (targets) {
      item.text = `$(chip) ${targets.archs.join(" ")}`;
      const from = targets.file ? `${targets.source} (${vscode.workspace.asRelativePath(targets.file)})` : targets.source;
      item.tooltip = `CUDA target architectures: ${targets.archs.join(", ")}\nFrom: ${from}`;
    }
    item.show();
  };
  ctx.subscriptions.push(vscode.window.onDidChangeActiveTextEditor(refresh));
  refresh();

  return {
    show(targets) {
      byUri.set(targets.uri, targets);
      refresh();
    },
  };
}
