// `cudaKernelDev.nsysProfile`: run a command line of the user's (their Python benchmark, a test
// binary) under Nsight Systems (found by findNsys) into .cuda-kernel-dev/profiles/nsys-<time>.nsys-rep
// and open it in the Nsight Systems panel (nsysReportEditor.ts), which remembers the command so
// "Profile with Nsight Compute" can rerun it under ncu. When nsys fails (on some installs its
// importer fails and no .nsys-rep appears) the user reads why, and nsys's output is in the log.
import { join } from "node:path";
import * as vscode from "vscode";
import { splitCommandLine } from "../server/profile/commandLine";
import { findNsys } from "../server/profile/nsysFind";
import { nsysProfileReport } from "../server/profile/nsysProfile";
import { NsysReportError } from "../server/profile/nsysReportDb";
import { errorMessage } from "../server/util/errorMessage";
import { NSYS_COMMAND, NSYS_EDITOR, type Commands } from "./contributions";
import { rememberCommand } from "./nsysReportEditor";
import { openSettings, settings } from "./settings";
import { requireTrust } from "./workspaceTrust";

async function run(ctx: vscode.ExtensionContext, log: vscode.LogOutputChannel, arg: unknown): Promise<void> {
  if (!requireTrust("Nsight Systems runs your command")) return;
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (!folder) {
    void vscode.window.showErrorMessage("CUDA Kernel Dev: open a folder to profile a command in it.");
    return;
  }
  const line =
    typeof arg === "string"
      ? arg
      : await vscode.window.showInputBox({
          title: "Nsight Systems: profile a command",
          prompt: `Command line to run under nsys (in ${folder})`,
          value: ctx.workspaceState.get<string>("nsys.command", ""),
          placeHolder: "python bench.py",
          ignoreFocusOut: true,
        });
  if (!line) return;
  await ctx.workspaceState.update("nsys.command", line);
  const ac = new AbortController();
  try {
    const command = splitCommandLine(line);
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const report = join(folder, ".cuda-kernel-dev", "profiles", `nsys-${stamp}.nsys-rep`);
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Nsight Systems: ${line}`, cancellable: true },
      (progress, token) => {
        token.onCancellationRequested(() => ac.abort());
        return nsysProfileReport({
          nsysPath: findNsys({ configured: settings().nsysPath }),
          command,
          report,
          cwd: folder,
          signal: ac.signal,
          onLine: (l) => {
            log.info(`nsys: ${l}`);
            if (l.trim()) progress.report({ message: l.trim().slice(0, 80) });
          },
        });
      },
    );
    if (result.programExitCode !== null)
      log.warn(`nsys: ${line} exited with code ${result.programExitCode}; its report is whole`);
    await rememberCommand(ctx, result.report, line);
    await vscode.commands.executeCommand("vscode.openWith", vscode.Uri.file(result.report), NSYS_EDITOR);
  } catch (e) {
    if (ac.signal.aborted) return;
    const message = errorMessage(e);
    log.error(message);
    const missing = e instanceof NsysReportError && e.code === "NO_NSYS";
    const pick = await vscode.window.showErrorMessage(
      `CUDA Kernel Dev: ${message}`,
      ...(missing ? ["Open Settings"] : ["Show Log"]),
    );
    if (pick === "Open Settings") await openSettings("cudaKernelDev.nsys");
    else if (pick === "Show Log") log.show(true);
  }
}

/** The profiling bundle's Nsight Systems command. */
export function activate(
  ctx: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
): Commands<typeof NSYS_COMMAND> {
  return { [NSYS_COMMAND]: (arg) => run(ctx, log, arg) };
}
