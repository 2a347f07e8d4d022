// Wires the features; each feature is a file exporting activate(ctx), and owns its state.
import * as vscode from "vscode";
import * as benchmark from "./benchmark";
import * as benchPanel from "./benchPanel";
import * as kernelLens from "./kernelLens";
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
  // The extension's one output channel ("CUDA Kernel Dev" in the Output panel).
  const log = vscode.window.createOutputChannel("CUDA Kernel Dev", { log: true });
  ctx.subscriptions.push(log);
  // First: the launch policy must be in place before any feature could run a tool.
  workspaceTrust.activate(ctx, log);
  const status = statusBar.activate(ctx);
  languageServer.activate(ctx, status);
  const compiles = nvccDiagnostics.activate(ctx, log);
  resources.activate(ctx, compiles);
  occupancyPanel.activate(ctx, compiles, log);
  ptxView.activate(ctx, log);
  profiling.activate(ctx, log);
  benchPanel.activate(ctx, log);
  benchmark.activate(ctx, log);
  kernelLens.activate(ctx);
  specAction.activate(ctx);
  const ms = performance.now() - started;
  log.info(`activated in ${ms.toFixed(1)} ms`);
}

export function deactivate(): Thenable<void> | undefined {
  return languageServer.stop();
}
