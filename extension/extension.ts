// Wires the features; each feature is a file exporting activate(ctx).
import * as vscode from "vscode";
import * as benchmark from "./benchmark";
import * as benchPanel from "./benchPanel";
import * as languageServer from "./languageServer";
import * as nvccDiagnostics from "./nvccDiagnostics";
import * as occupancyPanel from "./occupancyPanel";
import * as profiling from "./profiling";
import * as ptxView from "./ptxView";
import * as resources from "./resources";
import * as specAction from "./specAction";
import * as statusBar from "./statusBar";
import * as workspaceTrust from "./workspaceTrust";

export function activate(ctx: vscode.ExtensionContext): void {
  const started = performance.now();
  // First: the launch policy must be in place before any feature could run a tool.
  workspaceTrust.activate(ctx, log(ctx));
  const status = statusBar.activate(ctx);
  languageServer.activate(ctx, status);
  const compiles = nvccDiagnostics.activate(ctx, log(ctx));
  resources.activate(ctx, compiles);
  occupancyPanel.activate(ctx, compiles, log(ctx));
  ptxView.activate(ctx, log(ctx));
  profiling.activate(ctx, log(ctx));
  benchPanel.activate(ctx, log(ctx));
  benchmark.activate(ctx, log(ctx));
  specAction.activate(ctx);
  const ms = performance.now() - started;
  log(ctx).info(`activated in ${ms.toFixed(1)} ms`);
}

export function deactivate(): Thenable<void> | undefined {
  return languageServer.stop();
}

let channel: vscode.LogOutputChannel | undefined;
/** The extension's one output channel ("CUDA Kernel Dev" in the Output panel). */
export function log(ctx: vscode.ExtensionContext): vscode.LogOutputChannel {
  if (!channel) {
    channel = vscode.window.createOutputChannel("CUDA Kernel Dev", { log: true });
    ctx.subscriptions.push(channel);
  }
  return channel;
}
