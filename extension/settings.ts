// The one place features read `cudaKernelDev.*` settings (typed, with defaults: settingValues.ts), and
// what several features derive from them alike: the nvcc run for a file and its target architectures.
import * as vscode from "vscode";
import { projectFlags } from "../server/compiler/compileFile";
import type { ProjectFlags } from "../server/compiler/nvcc";
import { formatArch, parseArchList } from "../server/lint/arch";
import { resolveTargets } from "../server/lint/targets";
import { SECTION, Settings } from "./settingValues";

export { Settings } from "./settingValues";

/** The settings that apply to `scope` (a document's resource settings; machine settings are the same everywhere). */
export function settings(scope?: vscode.Uri): Settings {
  return new Settings(vscode.workspace.getConfiguration(SECTION, scope));
}

/** Opens the Settings editor at `query` (the whole section by default): the button on a "not found" message. */
export async function openSettings(query: string = SECTION): Promise<void> {
  await vscode.commands.executeCommand("workbench.action.openSettings", query);
}

export interface NvccSetup {
  /** The resolved executable. */
  nvcc: string;
  flags: ProjectFlags;
  timeoutMs: number;
}

/** How to run nvcc on `uri`: the executable, the project's flags plus the nvcc settings, the timeout. */
export async function nvccSetup(uri: vscode.Uri): Promise<NvccSetup> {
  const s = settings(uri);
  const nvcc = s.nvcc;
  const folder = vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath;
  return {
    nvcc: await s.nvccExecutable(),
    flags: projectFlags(uri.fsPath, { includePaths: nvcc.includePaths, extraArgs: nvcc.extraArgs }, folder),
    timeoutMs: nvcc.timeoutMs,
  };
}

/** The target architectures of `uri` ("sm_90"…): the setting, else its build files. Throws on a bad setting. */
export function targetArchs(uri: vscode.Uri): string[] {
  const folder = vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath;
  const targets = resolveTargets({
    file: uri.fsPath,
    explicit: { archs: parseArchList(settings(uri).targets), source: "setting" },
    ...(folder ? { stopAt: folder } : {}),
  });
  return targets.archs.map(formatArch);
}
