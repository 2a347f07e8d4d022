// The status-bar item: shows the target architectures in force for the active CUDA file and where they came
// from; turns into a warning when the language server reports a problem (e.g. the parser did not load).
import * as vscode from "vscode";
import type { ServerStatusParams, TargetsParams } from "../server/protocol";

export interface TargetsStatus {
  show(targets: TargetsParams): void;
  health(status: ServerStatusParams): void;
}

function describeSource(t: TargetsParams): string {
  if (t.source === "default")
    return "nothing: no setting or build file declares targets, so arch-dependent rules are off (set cudaKernelDev.targets)";
  if (t.source === "gpu") return "this machine's GPU (no setting or build file declares targets)";
  if (t.source === "cli") return "the --arch option";
  if (t.source === "setting") return "the cudaKernelDev.targets setting";
  if (t.source === "TORCH_CUDA_ARCH_LIST") return "the TORCH_CUDA_ARCH_LIST environment variable";
  return t.file ? `${t.source} (${vscode.workspace.asRelativePath(t.file)})` : t.source;
}

export function activate(ctx: vscode.ExtensionContext): TargetsStatus {
  const item = vscode.window.createStatusBarItem(
    "cuda-kernel-dev.targets",
    vscode.StatusBarAlignment.Right,
    100,
  );
  item.name = "CUDA Kernel Dev: target architectures";
  item.text = "$(chip) CUDA Kernel Dev";
  item.tooltip = "CUDA Kernel Dev is active";
  item.command = {
    title: "Set target architectures",
    command: "workbench.action.openSettings",
    arguments: ["cudaKernelDev.targets"],
  };
  ctx.subscriptions.push(item);

  const byUri = new Map<string, TargetsParams>();
  let server: ServerStatusParams | undefined;
  const refresh = (): void => {
    const doc = vscode.window.activeTextEditor?.document;
    if (!doc || doc.languageId !== "cuda-cpp") {
      item.hide();
      return;
    }
    const targets = byUri.get(doc.uri.toString());
    const problem = server && server.health !== "ok" ? server : undefined;
    if (targets) {
      const shown =
        targets.source === "default"
          ? "no targets"
          : `${targets.archs.join(" ")}${targets.source === "gpu" ? " (this GPU)" : ""}`;
      item.text = `${problem ? "$(warning)" : "$(chip)"} ${shown}`;
      const lines = [
        `CUDA target architectures: ${targets.source === "default" ? "none declared" : targets.archs.join(", ")}`,
        `From: ${describeSource(targets)}`,
      ];
      if (targets.context?.length) lines.push("", ...targets.context);
      if (targets.notes?.length) lines.push("", ...targets.notes.map((n) => `⚠ ${n}`));
      if (problem) lines.push("", `Language server: ${problem.message}`);
      item.tooltip = lines.join("\n");
    } else if (problem) {
      item.text = "$(warning) CUDA Kernel Dev";
      item.tooltip = `Language server: ${problem.message}`;
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
    health(status) {
      server = status;
      refresh();
    },
  };
}
