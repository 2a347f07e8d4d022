// The Nsight Systems panel's host side: one per opened report (the custom editor's webview, hosted
// by webviewHost.ts). It keeps the parsed trace and answers the page's timeline windows
// (nsysPanelWindow.ts says why the host windows), opens a clicked kernel's source when a workspace
// .cu file defines it, and profiles a kernel with Nsight Compute: ncu on the command that produced
// the report (`-k regex:^name$`) when that is known, else the Profile command on the workspace kernel.
import { join } from "node:path";
import * as vscode from "vscode";
import { splitCommandLine } from "../server/profile/commandLine";
import { profile } from "../server/profile/ncuCli";
import type { NsysTimelineTrace } from "../server/profile/nsysReport";
import type { NsysSummary } from "../server/profile/nsysReportSummary";
import { errorMessage } from "../server/util/errorMessage";
import { isNsysRequest, type NsysHostMessage } from "../webview/nsys/protocol";
import { PROFILE_COMMAND, REPORT_EDITOR } from "./contributions";
import type { KernelRef } from "./kernelRef";
import { kernelIdentifier, kernelLine, ncuKernelFilter } from "./nsysPanelKernels";
import { NsysTimelineData } from "./nsysPanelWindow";
import { settings } from "./settings";
import { type PanelOptions, WebviewHost } from "./webviewHost";
import { requireTrust } from "./workspaceTrust";

/** Bounds on the source search: files looked at and their size. */
const MAX_FILES = 2000;
const MAX_BYTES = 2_000_000;

/** The `__global__` definition of kernel `id` in the workspace's .cu/.cuh files, if any. */
export async function findKernelSource(id: string): Promise<{ uri: vscode.Uri; line: number } | undefined> {
  const files = await vscode.workspace.findFiles(
    "**/*.{cu,cuh}",
    "**/{node_modules,.git,.cuda-kernel-dev}/**",
    MAX_FILES,
  );
  for (const uri of files) {
    try {
      if ((await vscode.workspace.fs.stat(uri)).size > MAX_BYTES) continue;
      const line = kernelLine(new TextDecoder().decode(await vscode.workspace.fs.readFile(uri)), id);
      if (line !== undefined) return { uri, line };
    } catch {
      // gone or unreadable since the search: look at the next one
    }
  }
  return undefined;
}

export class NsysPanel {
  private data: NsysTimelineData | undefined;
  private summary: NsysSummary | undefined;
  private command: string | null = null;
  private readonly host: WebviewHost<NsysHostMessage>;
  /** Closed while the report was being read: what the read ends with goes nowhere. */
  private closed = false;

  constructor(
    panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
    private readonly title: string,
  ) {
    const options: PanelOptions = {
      extensionUri,
      log,
      bundle: "nsys",
      styles: ["shared", "nsys"],
      title: "Nsight Systems",
      label: "Nsight Systems panel",
      onRequest: (m) => this.request(m),
    };
    this.host = new WebviewHost<NsysHostMessage>(panel, options, {
      type: "loading",
      title,
      message: "Loading…",
    });
    panel.onDidDispose(() => (this.closed = true));
  }

  loading(message: string): void {
    if (!this.closed) this.host.show({ type: "loading", title: this.title, message });
  }

  fail(message: string): void {
    this.log.error(message);
    if (!this.closed) this.host.show({ type: "error", title: this.title, message });
  }

  load(summary: NsysSummary, trace: NsysTimelineTrace, file: string, command: string | null): void {
    if (this.closed) return;
    this.data = new NsysTimelineData(trace);
    this.summary = summary;
    this.command = command;
    this.host.show(this.data.report(summary, this.title, file, command));
  }

  private request(m: unknown): boolean {
    if (!isNsysRequest(m)) return false;
    if (m.type === "window") {
      if (this.data) this.host.post(this.data.window(m));
    } else if (this.summary) {
      const id = kernelIdentifier(this.summary, m.name);
      const act = m.type === "openKernel" ? this.openKernel(id) : this.profileKernel(id);
      act.catch((e: unknown) => {
        this.log.error(errorMessage(e));
        void vscode.window.showErrorMessage(`CUDA Kernel Dev: ${errorMessage(e)}`);
      });
    }
    return true;
  }

  private async openKernel(id: string): Promise<void> {
    const found = await findKernelSource(id);
    if (!found) {
      void vscode.window.showInformationMessage(
        `CUDA Kernel Dev: no __global__ ${id} is defined in this workspace's .cu files.`,
      );
      return;
    }
    const at = new vscode.Position(found.line, 0);
    await vscode.window.showTextDocument(found.uri, {
      viewColumn: vscode.ViewColumn.Beside,
      selection: new vscode.Range(at, at),
    });
  }

  private async profileKernel(id: string): Promise<void> {
    if (this.command) return this.ncuOnCommand(id, this.command);
    const found = await findKernelSource(id);
    if (!found) {
      void vscode.window.showInformationMessage(
        `CUDA Kernel Dev: ${id} is not defined in this workspace and the command that made this report is not known; ` +
          "profile it from its source, or profile the command with Nsight Systems from here first.",
      );
      return;
    }
    const ref: KernelRef = { uri: found.uri.toString(), kernel: id };
    await vscode.commands.executeCommand(PROFILE_COMMAND, ref);
  }

  /** ncu on the report's command, only kernel `id`; its report opens in the Nsight Compute editor. */
  private async ncuOnCommand(id: string, line: string): Promise<void> {
    if (!requireTrust("Nsight Compute runs your command")) return;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    if (!folder) return;
    const ncu = settings().ncu;
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const ac = new AbortController();
    const rep = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Nsight Compute: ${id}`, cancellable: true },
      (progress, token) => {
        token.onCancellationRequested(() => ac.abort());
        return profile({
          ncuPath: ncu.path,
          command: splitCommandLine(line),
          report: join(folder, ".cuda-kernel-dev", "profiles", `${id}-${ncu.set}-${stamp}`),
          kernel: ncuKernelFilter(id),
          count: ncu.launchCount,
          ...(ncu.skipLaunches > 0 ? { skip: ncu.skipLaunches } : {}),
          set: ncu.set,
          clockControl: ncu.clockControl,
          cwd: folder,
          signal: ac.signal,
          onLine: (l) => {
            this.log.info(`ncu: ${l}`);
            if (l.startsWith("==PROF==")) progress.report({ message: l.slice(9, 90) });
          },
        });
      },
    );
    await vscode.commands.executeCommand("vscode.openWith", vscode.Uri.file(rep), REPORT_EDITOR);
  }
}
