import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { openFile, runCommand, screenshot, withFailureScreenshot } from "../support/browser";
import { extensionLog, waitForLog } from "../support/extensionLog";
import { startUiSession, statusItem, type UiSession } from "../support/uiSession";

let ui: UiSession;
before(async () => {
  ui = await startUiSession();
});
after(async () => {
  await ui?.close();
});

/** The feature bundles (extension/features/), loaded on first use; the language client is loaded at once. */
const FEATURE_BUNDLE_LOADED = /loaded dist\/(nvcc|profiling|bench)\.js/g;
const loadedFeatureBundles = (): string[] =>
  [...extensionLog(ui).matchAll(FEATURE_BUNDLE_LOADED)].map((m) => m[1]!);

test("opening an example .cu activates the extension: its status-bar item appears within 5 s", async () => {
  await withFailureScreenshot(ui.page, "activation", async () => {
    await openFile(ui.page, "rmsnorm.cu");
    await statusItem(ui.page).waitFor({ state: "visible", timeout: 5_000 });
    // The language id stays VS Code's own: the status bar names it "CUDA C++".
    await ui.page.locator(".statusbar-item", { hasText: "CUDA C++" }).first().waitFor({ timeout: 5_000 });
    await screenshot(ui.page, "activation");
    assert.ok(await statusItem(ui.page).isVisible());
  });
});

test("activation loads the language client after it, and a feature's bundle only when first used", async () => {
  await withFailureScreenshot(ui.page, "activation-lazy", async () => {
    // Activated by a CUDA file, whether or not the test before opened one.
    await openFile(ui.page, "rmsnorm.cu");
    await waitForLog(ui, /activated in [\d.]+ ms/);
    await waitForLog(ui, /loaded dist\/languageClient\.js/);
    assert.deepEqual(loadedFeatureBundles(), [], "a feature bundle was loaded at activation");
    // Its command is registered at activation; running it loads the profiling bundle, and only that.
    await runCommand(ui.page, "CUDA Kernel Dev: Refresh CUDA Devices");
    await waitForLog(ui, /loaded dist\/profiling\.js/);
    assert.deepEqual(loadedFeatureBundles(), ["profiling"]);
  });
});
