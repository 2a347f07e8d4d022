// The entry's half of the bundles loaded on first use (extension/lazy.ts): registers at activation
// what VS Code must know of them (their commands, the report editors, the CUDA Devices view, the
// PTX/SASS documents, the saves that compile) and loads a bundle the first time one is used. Each
// bundle's events reach the providers registered here.
import * as vscode from "vscode";
import {
  ASM_SCHEME,
  CSV_EDITOR,
  DEVICES_VIEW,
  LAZY_COMMANDS,
  REPORT_EDITOR,
  type CommandBundle,
  type CommandHandler,
  type LazyCommand,
} from "./contributions";
import type { DeviceItem } from "./devicesView";
import { type FeatureHost, Lazy, loadBundle } from "./lazy";
import type { CompileResults } from "./nvccDiagnostics";
import type { CompileResultsSource } from "./resources";
import { settings } from "./settings";

type Features = ReturnType<typeof lazyBundles>;

/** The three feature bundles, each loaded on first use, its events passed on to the emitters given. */
function lazyBundles(
  host: FeatureHost,
  compiled: vscode.EventEmitter<CompileResults>,
  asmChanged: vscode.EventEmitter<vscode.Uri>,
  devicesChanged: vscode.EventEmitter<void>,
) {
  const subs = host.ctx.subscriptions;
  return {
    nvcc: new Lazy(() => {
      const f = loadBundle(host, "nvcc").activate(host);
      subs.push(
        f.checks.onDidCompile((c) => compiled.fire(c)),
        f.asm.onDidChange((uri) => asmChanged.fire(uri)),
      );
      return f;
    }),
    profiling: new Lazy(() => {
      const f = loadBundle(host, "profiling").activate(host);
      subs.push(f.devices.onDidChangeTreeData(() => devicesChanged.fire()));
      return f;
    }),
    bench: new Lazy(() => loadBundle(host, "bench").activate(host)),
  } satisfies Record<CommandBundle, Lazy<{ commands: object }>>;
}

function registerCommands(ctx: vscode.ExtensionContext, features: Features): void {
  for (const [id, bundle] of Object.entries(LAZY_COMMANDS) as [LazyCommand, CommandBundle][])
    ctx.subscriptions.push(
      vscode.commands.registerCommand(id, (...args: unknown[]) => {
        const commands: Partial<Record<LazyCommand, CommandHandler>> = features[bundle].get().commands;
        // CommandsOf makes each bundle hand back a handler for every command it is given.
        return commands[id]!(...args);
      }),
    );
}

/** The .ncu-rep and ncu CSV editors, the CUDA Devices view: the profiling bundle's. */
function registerProfilingViews(
  ctx: vscode.ExtensionContext,
  features: Features,
  devicesChanged: vscode.EventEmitter<void>,
): void {
  const profiling = (): ReturnType<Features["profiling"]["get"]> => features.profiling.get();
  const editor: vscode.CustomReadonlyEditorProvider = {
    openCustomDocument: (uri, context, token) =>
      profiling().reportEditor.openCustomDocument(uri, context, token),
    resolveCustomEditor: (doc, panel, token) =>
      profiling().reportEditor.resolveCustomEditor(doc, panel, token),
  };
  const options = {
    webviewOptions: { retainContextWhenHidden: false },
    supportsMultipleEditorsPerDocument: true,
  };
  const devices: vscode.TreeDataProvider<DeviceItem> = {
    onDidChangeTreeData: devicesChanged.event,
    getChildren: (item) => profiling().devices.getChildren(item),
    getTreeItem: (item) => profiling().devices.getTreeItem(item),
  };
  ctx.subscriptions.push(
    vscode.window.registerCustomEditorProvider(REPORT_EDITOR, editor, options),
    vscode.window.registerCustomEditorProvider(CSV_EDITOR, editor, options),
    vscode.window.registerTreeDataProvider(DEVICES_VIEW, devices),
  );
}

/**
 * Registers everything the lazily loaded bundles implement; returns the nvcc bundle's compile results
 * as the resource lenses read them (none until it is loaded).
 */
export function activate(host: FeatureHost): CompileResultsSource {
  const { ctx } = host;
  const compiled = new vscode.EventEmitter<CompileResults>();
  const asmChanged = new vscode.EventEmitter<vscode.Uri>();
  const devicesChanged = new vscode.EventEmitter<void>();
  ctx.subscriptions.push(compiled, asmChanged, devicesChanged);
  const features = lazyBundles(host, compiled, asmChanged, devicesChanged);
  registerCommands(ctx, features);
  registerProfilingViews(ctx, features, devicesChanged);
  ctx.subscriptions.push(
    // Only a save that compiles (cudaKernelDev.nvcc.checkOnSave) loads the nvcc bundle.
    vscode.workspace.onDidSaveTextDocument((doc) => {
      if (doc.languageId !== "cuda-cpp" || doc.uri.scheme !== "file" || !vscode.workspace.isTrusted) return;
      if (settings(doc.uri).nvcc.checkOnSave) features.nvcc.get().checks.schedule(doc);
    }),
    vscode.workspace.registerTextDocumentContentProvider(ASM_SCHEME, {
      onDidChange: asmChanged.event,
      // Before the bundle is loaded there is no view: one restored from an earlier session is closed.
      provideTextDocumentContent: (uri) =>
        features.nvcc.loaded?.asm.text(uri) ?? "(closed: run Show PTX again)",
    }),
  );
  return {
    onDidCompile: compiled.event,
    latest: (uri) => features.nvcc.loaded?.checks.latest(uri),
  };
}
