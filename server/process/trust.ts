// Workspace Trust, the editor-independent half: the launch policy for a workspace that is not
// trusted (nothing runs). Settings that name programs or their arguments are `machine`-scoped in
// package.json, so VS Code itself never hands the extension a value from a cloned repository's
// .vscode/settings.json (test/unit/process/trust.test.ts holds package.json to that).
import type { LaunchPolicy } from "./launchPolicy";

/** What the user reads when something was not run because the workspace is not trusted. */
export function untrustedMessage(tool: string): string {
  return `${tool} was not run: this workspace is in Restricted Mode. Trust it (Manage Workspace Trust) to compile, benchmark or profile; lints and opening CSV exports work without it.`;
}

/** Allows launches only while `isTrusted()` says so; read at each launch, so granting trust needs no reload. */
export function trustPolicy(isTrusted: () => boolean): LaunchPolicy {
  return (req) => (isTrusted() ? true : untrustedMessage(req.tool));
}
