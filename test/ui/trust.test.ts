// Workspace Trust in a real VS Code (code-server): a cloned workspace whose .vscode/settings.json
// points nvcc, ncu, nsys and nvidia-smi (and -ccbin) at its own script. In Restricted Mode nothing
// runs (the script would write a marker file; none appears), the commands say trust is needed,
// and the lints still work. After trust is granted, compiling runs the machine's nvcc, never the
// workspace's script, because those settings are machine-scoped.
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tempDir } from "../support/tempDir";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { openFile, runCommand, screenshot, withFailureScreenshot } from "../support/browser";
import { repoRoot, scratchCopy } from "../support/codeServer";
import { startUiSession, type UiSession } from "../support/uiSession";

let ui: UiSession;
const marker = join(tempDir("ckd-trust-marker-"), "script-ran");

before(async () => {
  const workspace = scratchCopy(join(repoRoot, "examples"));
  const evil = join(workspace, "tools", "nvcc");
  mkdirSync(join(workspace, "tools"));
  writeFileSync(evil, `#!/bin/sh\necho "$0 $*" >> '${marker}'\n`);
  chmodSync(evil, 0o755);
  mkdirSync(join(workspace, ".vscode"));
  writeFileSync(
    join(workspace, ".vscode", "settings.json"),
    JSON.stringify(
      {
        "cudaKernelDev.nvcc.path": evil,
        "cudaKernelDev.ncu.path": evil,
        "cudaKernelDev.nsys.path": evil,
        "cudaKernelDev.nvidiaSmi.path": evil,
        "cudaKernelDev.nvcc.extraArgs": ["-ccbin", evil],
      },
      null,
      2,
    ),
  );
  // Trust on, no startup prompt: the folder opens in Restricted Mode, as a fresh clone would.
  ui = await startUiSession({
    workspace,
    settings: { "security.workspace.trust.enabled": true, "security.workspace.trust.startupPrompt": "never" },
  });
});
after(async () => {
  await ui?.close();
});

const toast = (text: RegExp) =>
  ui.page.locator(".notifications-toasts .notification-toast", { hasText: text }).first();

test("Restricted Mode: lints work, tool commands say trust is needed, nothing runs", async () => {
  await withFailureScreenshot(ui.page, "trust-restricted", async () => {
    await openFile(ui.page, "bad_conventions.cu");
    await runCommand(ui.page, "View: Focus Problems");
    await ui.page
      .locator(".markers-panel .monaco-list-row", { hasText: "deprecated-shuffle" })
      .first()
      .waitFor({ timeout: 30_000 });
    // Save: nvcc-on-save must not start.
    await ui.page.locator(".monaco-editor .view-lines").first().click();
    await ui.page.keyboard.press("End");
    await ui.page.keyboard.type(" ");
    await ui.page.keyboard.press("Control+S");
    await runCommand(ui.page, "CUDA Kernel Dev: Compile with nvcc Now");
    await toast(/trust this workspace first/).waitFor({ timeout: 20_000 });
    await runCommand(ui.page, "CUDA Kernel Dev: Show PTX for Kernel at Cursor");
    await runCommand(ui.page, "CUDA Kernel Dev: Profile Kernel with Nsight Compute");
    await toast(/profiling builds and runs code; trust this workspace first/).waitFor({ timeout: 20_000 });
    // The CUDA Devices view asks for nvidia-smi: the launcher refuses and the view says why.
    await runCommand(ui.page, "Explorer: Focus on CUDA Devices View");
    await ui.page
      .locator(".monaco-list-row", { hasText: /Restricted Mode/ })
      .first()
      .waitFor({ timeout: 20_000 });
    await screenshot(ui.page, "trust-restricted");
    assert.equal(existsSync(marker), false, "the workspace's script ran");
  });
});

test("after trust is granted, compiling uses the machine's nvcc, not the workspace's script", async () => {
  await withFailureScreenshot(ui.page, "trust-granted", async () => {
    await runCommand(ui.page, "Workspaces: Manage Workspace Trust");
    const trust = ui.page.locator(".workspace-trust-editor .monaco-button", { hasText: /^Trust$/ }).first();
    await trust.waitFor({ timeout: 20_000 });
    await trust.click();
    await ui.page
      .locator(".workspace-trust-editor", { hasText: /trusted/i })
      .first()
      .waitFor({ timeout: 20_000 });
    await openFile(ui.page, "rmsnorm.cu");
    await runCommand(ui.page, "CUDA Kernel Dev: Compile with nvcc Now");
    // The resource lenses come from a real ptxas run.
    await ui.page.locator(".codelens-decoration", { hasText: /regs/ }).first().waitFor({ timeout: 180_000 });
    await screenshot(ui.page, "trust-granted");
    assert.equal(existsSync(marker), false, "the workspace's script ran after trust was granted");
  });
});
