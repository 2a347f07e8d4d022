// Workspace Trust, the editor-independent half: the launch policy for a workspace that is not
// trusted (nothing runs) and the rule for settings that name programs or their arguments (only
// the user's own value counts, never one a cloned repository's .vscode/settings.json brings).
import type { LaunchPolicy } from "./launch";

/** What the user reads when something was not run because the workspace is not trusted. */
export function untrustedMessage(tool: string): string {
  return `${tool} was not run: this workspace is in Restricted Mode. Trust it (Manage Workspace Trust) to compile, benchmark or profile; lints and opening CSV exports work without it.`;
}

/** Allows launches only while `isTrusted()` says so; read at each launch, so granting trust needs no reload. */
export function trustPolicy(isTrusted: () => boolean): LaunchPolicy {
  return (req) => (isTrusted() ? true : untrustedMessage(req.tool));
}

/** The shape of VS Code's `WorkspaceConfiguration.inspect()` result that matters here. */
export interface InspectedSetting<T> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

/**
 * The value of a setting that names a program, its arguments or include paths: the user's (or the
 * remote machine's) value, else the default. Workspace and folder values are never used, even if
 * VS Code hands them over (these settings are `machine`-scoped, so it should not).
 */
export function machineValue<T>(inspected: InspectedSetting<T> | undefined): T | undefined {
  return inspected?.globalValue ?? inspected?.defaultValue;
}
