// The entry's half of the bundles loaded on first use (extension/lazy.ts): registers at activation
// what VS Code must know of them (their commands and custom editors, the CUDA Devices view, the
// PTX/SASS documents, the saves that compile) and loads a bundle the first time one is used. Each
// bundle's events reach the providers registered here.
import * as vscode from "vscode";
import {
  ASM_SCHEME,
  DEVICES_VIEW,
  LAZY_COMMANDS,
  LAZY_EDITORS,
  type CommandHandler,
  type ContributionsOf,
  type FeatureBundle,
  type LazyCommand,
  type LazyEditor,
} from "./contributions";
import type { DeviceItem } from "./devicesView";
import { type FeatureHost, Lazy, loadBundle } from "./lazy";
import type { CompileResults } from "./nvccDiagnostics";
import type { CompileResultsSource } from "./resources";
import { settings } from "./settings";

/** The emitters of the providers registered here, which the bundles' own events are passed on to. */
interface Relays {
  compiled: vscode.EventEmitter<CompileResults>;
  asmChanged: vscode.EventEmitter<vscode.Uri>;
  devicesChanged: vscode.EventEmitter<void>;
}

type Features = ReturnType<typeof lazyBundles>;

function lazyBundles(host: FeatureHost, relays: Relays) {
  const subs = host.ctx.subscriptions;
  return {
    nvcc: new Lazy(() => {
      const f = loadBundle(host, "nvcc").activate(host);
      subs.push(
        f.checks.onDidCompile((c) => relays.compiled.fire(c)),
        f.asm.onDidChange((uri) => relays.asmChanged.fire(uri)),
      );
      return f;
    }),
    profiling: new Lazy(() => {
      const f = loadBundle(host, "profiling").activate(host);
      subs.push(f.devices.onDidChangeTreeData(() => relays.devicesChanged.fire()));
      return f;
    }),
    bench: new Lazy(() => loadBundle(host, "bench").activate(host)),
  } satisfies { [B in FeatureBundle]: Lazy<ContributionsOf<B>> };
}

/** The commands and custom editors of LAZY_COMMANDS and LAZY_EDITORS, each loading its bundle on first use. */
function registerContributions(ctx: vscode.ExtensionContext, features: Features): void {
  // ContributionsOf makes each bundle hand back a handler for every command and editor it is given.
  const command = (id: LazyCommand): CommandHandler => {
    const commands: Partial<Record<LazyCommand, CommandHandler>> = features[LAZY_COMMANDS[id]].get().commands;
    return commands[id]!;
  };
  const editor = (id: LazyEditor): vscode.CustomReadonlyEditorProvider => {
    const editors: Partial<Record<LazyEditor, vscode.CustomReadonlyEditorProvider>> =
      features[LAZY_EDITORS[id]].get().editors;
    return editors[id]!;
  };
  for (const id of Object.keys(LAZY_COMMANDS) as LazyCommand[])
    ctx.subscriptions.push(vscode.commands.registerCommand(id, (...args: unknown[]) => command(id)(...args)));
  const options = {
    webviewOptions: { retainContextWhenHidden: false },
    supportsMultipleEditorsPerDocument: true,
  };
  for (const id of Object.keys(LAZY_EDITORS) as LazyEditor[]) {
    const provider: vscode.CustomReadonlyEditorProvider = {
      openCustomDocument: (uri, context, token) => editor(id).openCustomDocument(uri, context, token),
      resolveCustomEditor: (doc, panel, token) => editor(id).resolveCustomEditor(doc, panel, token),
    };
    ctx.subscriptions.push(vscode.window.registerCustomEditorProvider(id, provider, options));
  }
}

/** The CUDA Devices view (the profiling bundle's data) and the PTX/SASS documents (the nvcc bundle's views). */
function registerViews(ctx: vscode.ExtensionContext, features: Features, relays: Relays): void {
  const devices: vscode.TreeDataProvider<DeviceItem> = {
    onDidChangeTreeData: relays.devicesChanged.event,
    getChildren: (item) => features.profiling.get().devices.getChildren(item),
    getTreeItem: (item) => features.profiling.get().devices.getTreeItem(item),
  };
  ctx.subscriptions.push(
    vscode.window.registerTreeDataProvider(DEVICES_VIEW, devices),
    vscode.workspace.registerTextDocumentContentProvider(ASM_SCHEME, {
      onDidChange: relays.asmChanged.event,
      // Before the bundle is loaded there is no view: one restored from an earlier session is closed.
      provideTextDocumentContent: (uri) =>
        features.nvcc.loaded?.asm.text(uri) ?? "(closed: run Show PTX again)",
    }),
  );
}

/**
 * Registers everything the lazily loaded bundles implement; returns the nvcc bundle's compile results
 * as the resource lenses read them (none until it is loaded).
 */
export function activate(host: FeatureHost): CompileResultsSource {
  const { ctx } = host;
  const relays: Relays = {
    compiled: new vscode.EventEmitter(),
    asmChanged: new vscode.EventEmitter(),
    devicesChanged: new vscode.EventEmitter(),
  };
  ctx.subscriptions.push(relays.compiled, relays.asmChanged, relays.devicesChanged);
  const features = lazyBundles(host, relays);
  registerContributions(ctx, features);
  registerViews(ctx, features, relays);
  ctx.subscriptions.push(
    // Only a save that compiles (cudaKernelDev.nvcc.checkOnSave) loads the nvcc bundle.
    vscode.workspace.onDidSaveTextDocument((doc) => {
      if (doc.languageId !== "cuda-cpp" || doc.uri.scheme !== "file" || !vscode.workspace.isTrusted) return;
      if (settings(doc.uri).nvcc.checkOnSave) features.nvcc.get().checks.schedule(doc);
    }),
  );
  return {
    onDidCompile: relays.compiled.event,
    latest: (uri) => features.nvcc.loaded?.checks.latest(uri),
  };
}
