// `cudaKernelDev.profileKernel` (behind the "Profile" lens): build the file's program with -lineinfo
// (when it has a main), run the kernel's @bench spec in the benchmark harness, or run the command
// the user gives, under ncu for just that kernel (-k, -c) with the set and clock control from
// settings, in a cancellable progress notification; keep the .ncu-rep (and its CSV pages) in
// .cuda-kernel-dev/profiles/, show the panel (its "Mark hot lines" reads the source page and marks them).
import { dirname, join } from "node:path";
import * as vscode from "vscode";
import { errorMessage } from "../server/util/errorMessage";
import type { KernelInfo } from "../server/bench/kernelScan";
import { NvccNotFoundError } from "../server/compiler/nvcc";
import { BuildProgramError, buildProgram, hasMain } from "../server/profile/buildProgram";
import { splitCommandLine } from "../server/profile/commandLine";
import { loadProfile } from "../server/profile/loadProfile";
import { NcuError, ncuVersion, profile } from "../server/profile/ncuCli";
import { profileWithBenchHarness } from "../server/profile/profileBench";
import { PROFILE_COMMAND, type Commands } from "./contributions";
import type { HotLines } from "./hotLines";
import { kernelTarget, qualifiedName } from "./kernelRef";
import { hotLinesReader, views } from "./ncuReportEditor";
import { showProfilePanel } from "./profilePanel";
import { openSettings, settings } from "./settings";
import type { NcuSettings } from "./settingValues";
import { requireTrust } from "./workspaceTrust";
import type { HostMessage } from "../webview/profile/protocol";

/**
 * What runs the kernel under ncu: a file with main() is its own harness ("program"); a kernel with
 * an @bench spec runs in the benchmark harness ("bench", the runner under ncu); otherwise the
 * command line the user gave.
 */
type Harness = { kind: "program" } | { kind: "bench" } | { kind: "command"; command: string[] };

interface Job {
  uri: vscode.Uri;
  kernel: KernelInfo;
  /** The command's scan of the document, reused by the benchmark harness while it matches the file on disk. */
  scan?: KernelInfo[];
  harness: Harness;
  /** Where the program runs and the reports go under. */
  folder: string;
  ncu: NcuSettings;
  signal: AbortSignal;
}

type Progress = vscode.Progress<{ message?: string }>;

/** The profiling feature: one profile at a time. */
class Profiler implements vscode.Disposable {
  private running: AbortController | undefined;

  constructor(
    private readonly ctx: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    private readonly hot: HotLines,
  ) {}

  async run(arg: unknown): Promise<void> {
    if (!requireTrust("profiling builds and runs code")) return;
    if (this.running) {
      void vscode.window.showInformationMessage("CUDA Kernel Dev: a profile is already running.");
      return;
    }
    const target = await kernelTarget(arg);
    if (!target) return;
    const { doc, kernel } = target;
    if (!kernel) {
      void vscode.window.showErrorMessage(
        target.wanted !== undefined
          ? `CUDA Kernel Dev: no __global__ kernel '${target.wanted}' in ${vscode.workspace.asRelativePath(doc.uri)} to profile.`
          : "CUDA Kernel Dev: no __global__ kernel at the cursor to profile.",
      );
      return;
    }
    const folder = vscode.workspace.getWorkspaceFolder(doc.uri)?.uri.fsPath ?? dirname(doc.uri.fsPath);
    const harness = await this.harness(doc, kernel, folder);
    if (!harness) return;
    const abort = new AbortController();
    this.running = abort;
    const job: Job = {
      uri: doc.uri,
      kernel,
      ...(doc.isDirty ? {} : { scan: target.scan }),
      harness,
      folder,
      ncu: settings().ncu,
      signal: abort.signal,
    };
    try {
      await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: `Profiling ${kernel.name} (ncu --set ${job.ncu.set})`,
          cancellable: true,
        },
        (progress, token) => {
          token.onCancellationRequested(() => abort.abort());
          return this.profile(job, progress);
        },
      );
    } catch (e) {
      if (!abort.signal.aborted) await this.failed(e);
    } finally {
      this.running = undefined;
    }
  }

  /** The harness for `kernel`; undefined when the user was asked for a command and gave none. */
  private async harness(
    doc: vscode.TextDocument,
    kernel: KernelInfo,
    folder: string,
  ): Promise<Harness | undefined> {
    if (hasMain(doc.getText())) return { kind: "program" };
    if (kernel.specLines.length > 0) return { kind: "bench" };
    const key = `profile.command:${doc.uri.fsPath}`;
    const line = await vscode.window.showInputBox({
      title: `Profile ${kernel.name}`,
      prompt: `${vscode.workspace.asRelativePath(doc.uri)} has no main() and ${kernel.name} no @bench spec. Command line that launches ${kernel.name} (run in ${vscode.workspace.asRelativePath(folder)}):`,
      value: this.ctx.workspaceState.get<string>(key, ""),
      placeHolder: "python bench.py --size 4096",
      ignoreFocusOut: true,
    });
    if (!line) return undefined;
    await this.ctx.workspaceState.update(key, line);
    return { kind: "command", command: splitCommandLine(line) };
  }

  /** Profiles, exports the report's pages, marks the hot lines and shows the panel. */
  private async profile(job: Job, progress: Progress): Promise<void> {
    const { ncu } = job;
    const outDir = join(job.folder, ".cuda-kernel-dev", "profiles");
    // ncu first: no point building a program nothing can profile.
    await ncuVersion(ncu.path);
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const report = join(outDir, `${job.kernel.name.replace(/\W+/g, "_")}-${ncu.set}-${stamp}`);
    const onLine = (l: string): void => {
      this.log.info(l);
      const m = /^==PROF== Profiling "(.+?)" - (\d+): (.*)$/.exec(l);
      if (m) progress.report({ message: `launch ${m[2]}: ${m[3]}` });
    };
    const rep =
      job.harness.kind === "bench"
        ? await profileWithBenchHarness({
            file: job.uri.fsPath,
            kernel: qualifiedName(job.kernel),
            ...(job.scan ? { scan: job.scan } : {}),
            nvcc: await settings(job.uri).nvccExecutable(),
            ncu: ncu.path,
            set: ncu.set,
            clockControl: ncu.clockControl,
            count: ncu.launchCount,
            report,
            signal: job.signal,
            onLine,
            onProgress: (p) => progress.report({ message: p.stage }),
          })
        : await this.underNcu(job, await this.command(job, outDir, progress), report, onLine);
    progress.report({ message: "exporting the report…" });
    // The source page (hot lines) is exported and read only when the panel asks for it.
    const loaded = await loadProfile(rep, ncu.path, outDir, job.signal, { source: "lazy" });
    const name = job.kernel.name;
    const message: HostMessage = {
      type: "profile",
      title: name,
      file: vscode.workspace.asRelativePath(rep),
      launches: views(loaded),
      selected: 0,
      hotLines: null,
    };
    const key = `profile:${job.uri.fsPath}:${name}`;
    showProfilePanel(this.ctx, this.log, key, `Profile: ${name}`, message, hotLinesReader(loaded, this.hot));
  }

  /** The command line that launches the kernel: the user's, or the file's program built with -lineinfo. */
  private async command(job: Job, outDir: string, progress: Progress): Promise<string[]> {
    if (job.harness.kind === "command") return job.harness.command;
    progress.report({ message: "building with nvcc -lineinfo…" });
    const nvcc = await settings(job.uri).nvccExecutable();
    return [await buildProgram(nvcc, job.uri.fsPath, outDir, undefined, job.signal)];
  }

  /** `command` under ncu, profiling only the kernel's launches; resolves with the .ncu-rep path. */
  private underNcu(
    job: Job,
    command: string[],
    report: string,
    onLine: (l: string) => void,
  ): Promise<string> {
    const { ncu } = job;
    this.log.info(`ncu: profiling ${job.kernel.name} in ${command.join(" ")}`);
    return profile({
      ncuPath: ncu.path,
      command,
      report,
      kernel: job.kernel.name,
      count: ncu.launchCount,
      ...(ncu.skipLaunches > 0 ? { skip: ncu.skipLaunches } : {}),
      set: ncu.set,
      clockControl: ncu.clockControl,
      cwd: job.folder,
      signal: job.signal,
      onLine,
    });
  }

  /** One message; a missing ncu or nvcc offers the settings. */
  private async failed(e: unknown): Promise<void> {
    this.log.error(errorMessage(e));
    const missingTool =
      (e instanceof NcuError && e.code === "NOT_FOUND") ||
      (e instanceof BuildProgramError && e.code === "NVCC_MISSING") ||
      e instanceof NvccNotFoundError;
    const open = "Open Settings";
    const pick = await vscode.window.showErrorMessage(
      `CUDA Kernel Dev: ${errorMessage(e)}`,
      ...(missingTool ? [open] : []),
    );
    if (pick === open) await openSettings();
  }

  dispose(): void {
    this.running?.abort();
  }
}

/** The profiling bundle's profiler and its command. */
export function activate(
  ctx: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  hot: HotLines,
): Commands<typeof PROFILE_COMMAND> {
  const profiler = new Profiler(ctx, log, hot);
  ctx.subscriptions.push(profiler);
  return { [PROFILE_COMMAND]: (ref) => profiler.run(ref) };
}
