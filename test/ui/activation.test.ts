import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { openFile, screenshot, withFailureScreenshot } from "../support/browser";
import { startUiSession, statusItem, type UiSession } from "../support/uiSession";

let ui: UiSession;
before(async () => {
  ui = await startUiSession();
});
after(async () => {
  await ui?.close();
});

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
