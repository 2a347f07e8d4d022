// Restricted Mode: in a workspace that is not trusted, nothing is executed (no nvcc, ptxas, ncu,
// nsys, nvidia-smi, runner). Every spawn goes through server/process/launch.ts, whose policy is set
// here; it reads the trust state at each launch, so granting trust takes effect at once.
import * as vscode from "vscode";
import { setLaunchPolicy } from "../server/process/launch";
import { trustPolicy } from "../server/process/trust";

export function activate(ctx: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  setLaunchPolicy(trustPolicy(() => vscode.workspace.isTrusted));
  ctx.subscriptions.push(
    { dispose: () => setLaunchPolicy(undefined) },
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
 * The guard every command that runs a tool starts with: false (and an error message saying what
 * `action` would run) in Restricted Mode.
 */
export function requireTrust(action: string): boolean {
  if (vscode.workspace.isTrusted) return true;
  void vscode.window.showErrorMessage(`CUDA Kernel Dev: ${action}; trust this workspace first.`);
  return false;
}
