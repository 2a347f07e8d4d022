// Restricted Mode: in a workspace that is not trusted, nothing is executed (no nvcc, ptxas, ncu,
// nsys, nvidia-smi, runner). Every spawn goes through server/process/launch.ts, which refuses every
// launch until a policy is installed; the bundle loader installs this one (guardLaunches) before the
// first bundle loads. It reads the trust state at each launch, so granting trust takes effect at once.
import * as vscode from "vscode";
import { setLaunchPolicy } from "../server/process/launchPolicy";
import { trustPolicy } from "../server/process/trust";

/** At activation: says in the log what Restricted Mode holds back, and when trust is granted. */
export function activate(ctx: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  ctx.subscriptions.push(
    vscode.workspace.onDidGrantWorkspaceTrust(() =>
      log.info("workspace trusted: compiling, benchmarking and profiling can run tools now"),
    ),
  );
  if (!vscode.workspace.isTrusted)
    log.info(
      "Restricted Mode: no tool (nvcc, ncu, nsys, nvidia-smi, the GPU runner) runs until the workspace is trusted",
    );
}

/**
 * Installs the trust policy for every bundle at once (the policy is one process-wide slot, whatever
 * copy of the launcher a bundle holds); until then, and after deactivation, every launch is refused.
 */
export function guardLaunches(ctx: vscode.ExtensionContext): void {
  setLaunchPolicy(trustPolicy(() => vscode.workspace.isTrusted));
  ctx.subscriptions.push({ dispose: () => setLaunchPolicy(undefined) });
}

/**
 * The guard every command that runs a tool starts with: false (and an error message saying what
 * `action` would run) in Restricted Mode.
 */
export function requireTrust(action: string): boolean {
  if (vscode.workspace.isTrusted) return true;
  void vscode.window.showErrorMessage(`CUDA Kernel Dev: ${action}; trust this workspace first.`);
  return false;
}
