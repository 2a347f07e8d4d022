// The languageClient bundle (dist/languageClient.js): the language client, which starts the bundled
// server for cuda-cpp documents. The entry loads it just after activation (extension/extension.ts),
// so vscode-languageclient's load is not part of it.
import * as vscode from "vscode";
import {
  LanguageClient,
  TransportKind,
  type LanguageClientOptions,
  type ServerOptions,
} from "vscode-languageclient/node";
import { machineGpuArch } from "../../server/lint/machineGpu";
import {
  machineGpuNotification,
  serverStatusNotification,
  targetsNotification,
  type InitializationOptions,
} from "../../server/protocol";
import { settings } from "../settings";
import type { TargetsStatus } from "../statusBar";

let client: LanguageClient | undefined;

/** Files that decide target architectures or rule severities: the server re-resolves when one changes. */
const BUILD_FILES = "**/{build.toml,CMakeLists.txt,setup.py,compile_commands.json,.cuda-kernel-dev.toml}";

/** Starts the client; the promise settles once the server is up (the entry reports a failure). */
export function start(ctx: vscode.ExtensionContext, status: TargetsStatus): Promise<void> {
  const module = ctx.asAbsolutePath("dist/server.js");
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: ["--inspect=6019"] } },
  };
  const watcher = vscode.workspace.createFileSystemWatcher(BUILD_FILES);
  ctx.subscriptions.push(watcher);
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ language: "cuda-cpp" }],
    // Settings are pulled per document by the server (workspace/configuration); only file events are pushed.
    synchronize: { fileEvents: watcher },
    initializationOptions: { extensionPath: ctx.extensionPath } satisfies InitializationOptions,
  };
  client = new LanguageClient("cudaKernelDev", "CUDA Kernel Dev", serverOptions, clientOptions);
  ctx.subscriptions.push(
    client.onNotification(targetsNotification, (p) => status.show(p)),
    client.onNotification(serverStatusNotification, (p) => status.health(p)),
  );
  const started = client.start();
  void started.then(() => tellMachineGpu(client));
  return started;
}

/**
 * Files that declare no targets assume this machine's GPU, as the CLI does. nvidia-smi runs from the
 * machine-scoped setting and only in a trusted workspace; after the server is up, so it delays nothing.
 */
async function tellMachineGpu(c: LanguageClient | undefined): Promise<void> {
  if (!c || !vscode.workspace.isTrusted) return;
  const arch = await machineGpuArch(settings().nvidiaSmiPath);
  if (arch !== undefined && c.isRunning()) await c.sendNotification(machineGpuNotification, { arch });
}

export function stop(): Thenable<void> | undefined {
  return client?.stop();
}
