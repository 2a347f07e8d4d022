// The entry, dist/extension.js: registers every feature at activation and loads what activation does
// not need on first use (extension/lazy.ts). Each feature is a file exporting activate(ctx), and owns
// its state.
import * as vscode from "vscode";
import * as kernelLens from "./kernelLens";
import { type Bundles, type FeatureHost, Lazy, loadBundle } from "./lazy";
import * as lazyFeatures from "./lazyFeatures";
import * as resources from "./resources";
import * as specAction from "./specAction";
import * as statusBar from "./statusBar";
import * as workspaceTrust from "./workspaceTrust";

let languageClient: Lazy<Bundles["languageClient"]> | undefined;

/**
 * Starts the language client just after activation returns: loading it is most of the extension's
 * code, and activation has nothing to wait for from it. A failure to load or to start is reported.
 */
function startLanguageClient(host: FeatureHost, status: statusBar.TargetsStatus): void {
  const client = new Lazy(() => loadBundle(host, "languageClient"));
  languageClient = client;
  const timer = setImmediate(() => {
    Promise.resolve()
      .then(() => client.get().start(host.ctx, status))
      .catch((err: unknown) => {
        void vscode.window.showErrorMessage(
          `CUDA Kernel Dev: the language server did not start: ${String(err)}`,
        );
      });
  });
  host.ctx.subscriptions.push({ dispose: () => clearImmediate(timer) });
}

export function activate(ctx: vscode.ExtensionContext): void {
  const started = performance.now();
  // The extension's one output channel ("CUDA Kernel Dev" in the Output panel).
  const log = vscode.window.createOutputChannel("CUDA Kernel Dev", { log: true });
  ctx.subscriptions.push(log);
  const host = { ctx, log };
  workspaceTrust.activate(ctx, log);
  const status = statusBar.activate(ctx);
  startLanguageClient(host, status);
  const compiles = lazyFeatures.activate(host);
  resources.activate(ctx, compiles);
  kernelLens.activate(ctx);
  specAction.activate(ctx);
  const ms = performance.now() - started;
  log.info(`activated in ${ms.toFixed(1)} ms`);
}

export function deactivate(): Thenable<void> | undefined {
  return languageClient?.loaded?.stop();
}
