// `cudaKernelDev.nsysProfile`: run a command line of the user's (their Python benchmark, a test
// binary) under Nsight Systems and show cuda_gpu_kern_sum / cuda_gpu_mem_time_sum as a table and
// chart. When nsys fails (on some installs its importer fails and no .nsys-rep appears) the user
// reads nsys's own message, and the full output is in the log.
import { join } from "node:path";
import * as vscode from "vscode";
import { splitCommandLine } from "../server/profile/commandLine";
import { NsysError, nsysProfileAndStats } from "../server/profile/nsysCli";
import { errorMessage } from "../server/util/errorMessage";
import { NSYS_COMMAND, type Commands } from "./contributions";
import { showProfilePanel } from "./profilePanel";
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
  const nsysPath = settings().nsysPath;
  const ac = new AbortController();
  try {
    const command = splitCommandLine(line);
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Nsight Systems: ${line}`, cancellable: true },
      (progress, token) => {
        token.onCancellationRequested(() => ac.abort());
        return nsysProfileAndStats({
          nsysPath,
          command,
          report: join(folder, ".cuda-kernel-dev", "profiles", `nsys-${stamp}`),
          cwd: folder,
          signal: ac.signal,
          onLine: (l) => {
            log.info(`nsys: ${l}`);
            if (l.trim()) progress.report({ message: l.trim().slice(0, 80) });
          },
        });
      },
    );
    showProfilePanel(ctx, log, `nsys:${line}`, "Nsight Systems", {
      type: "nsys",
      title: "Nsight Systems",
      command: `${line}  →  ${vscode.workspace.asRelativePath(result.report)}`,
      stats: result.stats,
    });
  } catch (e) {
    if (ac.signal.aborted) return;
    if (e instanceof NsysError && e.output) log.error(`nsys output:\n${e.output}`);
    const message = errorMessage(e);
    log.error(message);
    const pick = await vscode.window.showErrorMessage(
      `CUDA Kernel Dev: ${message}`,
      ...(e instanceof NsysError && e.code === "NOT_FOUND" ? ["Open Settings"] : ["Show Log"]),
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
