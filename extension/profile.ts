// "Profile" above every __global__ kernel, and `cudaKernelDev.profileKernel` behind it: build the
// file's program with -lineinfo (when it has a main) or run the command the user gives, under ncu
// for just that kernel (-k, -c) with the set and clock control from settings, in a cancellable
// progress notification; keep the .ncu-rep (and its CSV pages) in .cuda-kernel-dev/profiles/, show
// the panel and mark the hot lines.
import { dirname, join } from "node:path";
import * as vscode from "vscode";
import { scanKernels } from "../server/bench/kernelScan";
import { BuildProgramError, buildProgram, hasMain } from "../server/profile/buildProgram";
import { loadCsvs, exportReport } from "../server/profile/loadProfile";
import { NcuError, ncuVersion, profile, type ClockControl, type NcuSet } from "../server/profile/ncuCli";
import { splitCommandLine } from "../server/profile/commandLine";
import { profileWithBenchHarness } from "../server/profile/profileBench";
import type { HotLines } from "./hotLines";
import { errorText, ncuPath, views } from "./ncuReportEditor";
import { showProfilePanel } from "./profilePanel";

export const PROFILE_COMMAND = "cudaKernelDev.profileKernel";

class ProfileLenses implements vscode.CodeLensProvider {
  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    return scanKernels(doc.getText())
      .filter((k) => k.hasBody)
      .map(
        (k) =>
          new vscode.CodeLens(new vscode.Range(k.declLine, 0, k.declLine, 0), {
            title: "Profile",
            tooltip: `Profile ${k.name} with Nsight Compute`,
            command: PROFILE_COMMAND,
            arguments: [doc.uri.toString(), k.name],
          }),
      );
  }
}

function settings(): { set: NcuSet; clockControl: ClockControl; nvcc: string; count: number; skip: number } {
  const c = vscode.workspace.getConfiguration("cudaKernelDev");
  return {
    set: c.get<NcuSet>("ncu.set", "full"),
    clockControl: c.get<ClockControl>("ncu.clockControl", "base"),
    nvcc: c.get<string>("nvcc.path") || "nvcc",
    count: c.get<number>("ncu.launchCount", 1),
    skip: c.get<number>("ncu.skipLaunches", 0),
  };
}

let running: AbortController | undefined;

async function profileKernel(
  ctx: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  hot: HotLines,
  uriArg: unknown,
  kernelArg: unknown,
): Promise<void> {
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showErrorMessage(
      "CUDA Kernel Dev: profiling builds and runs code; trust this workspace first.",
    );
    return;
  }
  if (running) {
    void vscode.window.showInformationMessage("CUDA Kernel Dev: a profile is already running.");
    return;
  }
  const editor = vscode.window.activeTextEditor;
  const uri = typeof uriArg === "string" ? vscode.Uri.parse(uriArg) : editor?.document.uri;
  if (!uri) return;
  const text = (await vscode.workspace.openTextDocument(uri)).getText();
  const line =
    editor?.document.uri.toString() === uri.toString()
      ? editor.selection.active.line
      : Number.MAX_SAFE_INTEGER;
  const kernel =
    typeof kernelArg === "string"
      ? kernelArg
      : scanKernels(text)
          .filter((k) => k.hasBody && k.declLine <= line)
          .pop()?.name;
  if (!kernel) {
    void vscode.window.showErrorMessage("CUDA Kernel Dev: no __global__ kernel at the cursor to profile.");
    return;
  }
  const folder = vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath ?? dirname(uri.fsPath);
  const outDir = join(folder, ".cuda-kernel-dev", "profiles");
  const s = settings();

  // A file with main() is its own harness; a kernel with an @bench spec runs in the benchmark
  // harness (the runner, under ncu); otherwise the user says what runs the kernel.
  let command: string[] | undefined;
  const viaBench =
    !hasMain(text) && scanKernels(text).some((k) => k.hasBody && k.name === kernel && k.specLines.length > 0);
  if (!hasMain(text) && !viaBench) {
    const key = `profile.command:${uri.fsPath}`;
    const line = await vscode.window.showInputBox({
      title: `Profile ${kernel}`,
      prompt: `${vscode.workspace.asRelativePath(uri)} has no main() and ${kernel} no @bench spec. Command line that launches ${kernel} (run in ${vscode.workspace.asRelativePath(folder)}):`,
      value: ctx.workspaceState.get<string>(key, ""),
      placeHolder: "python bench.py --size 4096",
      ignoreFocusOut: true,
    });
    if (!line) return;
    await ctx.workspaceState.update(key, line);
    command = splitCommandLine(line);
  }

  running = new AbortController();
  const signal = running.signal;
  try {
    await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `Profiling ${kernel} (ncu --set ${s.set})`,
        cancellable: true,
      },
      async (progress, token) => {
        token.onCancellationRequested(() => running?.abort());
        // ncu first: no point building a program nothing can profile.
        await ncuVersion(ncuPath());
        const stamp = new Date().toISOString().replace(/[:.]/g, "-");
        const report = join(outDir, `${kernel.replace(/\W+/g, "_")}-${s.set}-${stamp}`);
        const onLine = (l: string): void => {
          log.info(l);
          const m = /^==PROF== Profiling "(.+?)" - (\d+): (.*)$/.exec(l);
          if (m) progress.report({ message: `launch ${m[2]}: ${m[3]}` });
        };
        let rep: string;
        if (viaBench) {
          rep = await profileWithBenchHarness({
            file: uri.fsPath,
            kernel,
            nvcc: s.nvcc,
            ncu: ncuPath(),
            set: s.set,
            clockControl: s.clockControl,
            count: s.count,
            report,
            signal,
            onLine,
            onProgress: (p) => progress.report({ message: p.stage }),
          });
        } else {
          if (!command) {
            progress.report({ message: "building with nvcc -lineinfo…" });
            command = [await buildProgram(s.nvcc, uri.fsPath, outDir, undefined, signal)];
          }
          log.info(`ncu: profiling ${kernel} in ${command.join(" ")}`);
          rep = await profile({
            ncuPath: ncuPath(),
            command,
            report,
            kernel,
            count: s.count,
            ...(s.skip > 0 ? { skip: s.skip } : {}),
            set: s.set,
            clockControl: s.clockControl,
            cwd: folder,
            signal,
            onLine,
          });
        }
        progress.report({ message: "exporting the report…" });
        const loaded = await loadCsvs(await exportReport(ncuPath(), rep, outDir, signal));
        const hotLines = loaded.source ? hot.set(loaded.source) : [];
        showProfilePanel(ctx, log, `profile:${uri.fsPath}:${kernel}`, `Profile: ${kernel}`, {
          type: "profile",
          title: kernel,
          file: vscode.workspace.asRelativePath(rep),
          launches: views(loaded),
          selected: 0,
          hotLines,
        });
      },
    );
  } catch (e) {
    if (signal.aborted) return;
    log.error(errorText(e));
    const settingsButton = e instanceof NcuError && e.code === "NOT_FOUND" ? ["Open Settings"] : [];
    const nvccButton = e instanceof BuildProgramError && e.code === "NVCC_MISSING" ? ["Open Settings"] : [];
    const pick = await vscode.window.showErrorMessage(
      `CUDA Kernel Dev: ${errorText(e)}`,
      ...settingsButton,
      ...nvccButton,
    );
    if (pick === "Open Settings")
      await vscode.commands.executeCommand("workbench.action.openSettings", "cudaKernelDev");
  } finally {
    running = undefined;
  }
}

export function activate(ctx: vscode.ExtensionContext, log: vscode.LogOutputChannel, hot: HotLines): void {
  ctx.subscriptions.push(
    vscode.languages.registerCodeLensProvider({ language: "cuda-cpp" }, new ProfileLenses()),
    vscode.commands.registerCommand(PROFILE_COMMAND, (u: unknown, k: unknown) =>
      profileKernel(ctx, log, hot, u, k),
    ),
    { dispose: () => running?.abort() },
  );
}
