// `npm run bench:activation`: the extension's activation time as VS Code itself measures it
// (Developer: Show Running Extensions), and the size of the bundled extension entry.
import { statSync } from "node:fs";
import { join } from "node:path";
import { openFile, runCommand, screenshot } from "../support/browser";
import { repoRoot } from "../support/codeServer";
import { startUiSession, statusItem } from "../support/uiSession";

async function main(): Promise<void> {
  const ui = await startUiSession();
  try {
    await openFile(ui.page, "rmsnorm.cu");
    await statusItem(ui.page).waitFor({ state: "visible", timeout: 10_000 });
    await runCommand(ui.page, "Developer: Show Running Extensions");
    const row = ui.page
      .locator(".runtime-extensions-editor .monaco-list-row", { hasText: "CUDA Kernel Dev" })
      .first();
    await row.waitFor({ timeout: 15_000 });
    const activation = await row.locator(".activation-time").first().textContent();
    await screenshot(ui.page, "bench-activation");
    const entry = statSync(join(repoRoot, "dist/extension.js")).size;
    console.log(`activation (VS Code's own figure): ${activation?.trim() ?? "?"}`);
    console.log(`bundled extension entry dist/extension.js: ${(entry / 1024).toFixed(1)} KiB`);
  } finally {
    await ui.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
