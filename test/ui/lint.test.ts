// The lints as a person sees them: the Problems panel, a quick fix applied from the editor, hover docs.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, afterEach, before, test } from "node:test";
import { closeAllEditors, openFile, runCommand, screenshot, withFailureScreenshot } from "../support/browser";
import { startUiSession, type UiSession } from "../support/uiSession";

let ui: UiSession;
before(async () => {
  ui = await startUiSession();
});
after(async () => {
  await ui?.close();
});
// Each test opens the example itself; the quick fix's test reverts its edit.
afterEach(async () => {
  await closeAllEditors(ui.page);
});

const problemRows = () => ui.page.locator(".markers-panel .monaco-list-row");

test("the Problems panel lists the bad example's findings by rule id", async () => {
  await withFailureScreenshot(ui.page, "lint-problems", async () => {
    await openFile(ui.page, "bad_conventions.cu");
    await runCommand(ui.page, "View: Focus Problems");
    for (const rule of [
      "deprecated-shuffle",
      "half-operator",
      "block-size-too-large",
      "syncthreads-in-divergent-branch",
    ]) {
      await problemRows().filter({ hasText: rule }).first().waitFor({ timeout: 15_000 });
    }
    await screenshot(ui.page, "lint-problems");
  });
});

test("a quick fix applied from the editor changes the text and clears the diagnostic", async () => {
  try {
    await withFailureScreenshot(ui.page, "lint-quickfix", async () => {
      await openFile(ui.page, "bad_conventions.cu");
      await runCommand(ui.page, "View: Focus Problems");
      const row = problemRows().filter({ hasText: "deprecated-shuffle" }).first();
      await row.waitFor({ timeout: 15_000 });
      await row.click(); // puts the editor's cursor on the finding
      await row.press("Enter");
      await ui.page.locator(".monaco-editor.focused").first().waitFor();
      await ui.page.keyboard.press("Control+.");
      // The preferred fix is focused in the menu; apply it from the keyboard, as a person would.
      await ui.page
        .locator(".monaco-list-row.action.focused", { hasText: "_sync" })
        .first()
        .waitFor({ timeout: 10_000 });
      await ui.page.keyboard.press("Enter");
      await ui.page
        .locator(".view-lines", { hasText: "__shfl_down_sync(0xffffffff" })
        .first()
        .waitFor({ timeout: 10_000 });
      await runCommand(ui.page, "View: Focus Problems");
      await problemRows()
        .filter({ hasText: "deprecated-shuffle" })
        .first()
        .waitFor({ state: "detached", timeout: 10_000 });
      await screenshot(ui.page, "lint-quickfix");
    });
  } finally {
    // The fix was not saved: back to the file on disk, so closing asks nothing and no test sees the edit.
    await openFile(ui.page, "bad_conventions.cu");
    await runCommand(ui.page, "File: Revert File");
    await ui.page
      .locator(".tabs-container .tab.active.dirty")
      .waitFor({ state: "detached", timeout: 10_000 });
  }
});

test("hover shows the doc of a CUDA intrinsic", async () => {
  await withFailureScreenshot(ui.page, "lint-hover", async () => {
    await openFile(ui.page, "bad_conventions.cu");
    await ui.page.keyboard.press("Escape");
    // Put the cursor on the first __syncthreads through Go to Line, then ask for the hover from the keyboard.
    const lines = readFileSync(join(ui.workspace, "bad_conventions.cu"), "utf8").split("\n");
    const line = lines.findIndex((l) => l.includes("__syncthreads();"));
    const column = (lines[line] ?? "").indexOf("__syncthreads") + 3;
    await runCommand(ui.page, "Go to Line/Column...");
    const input = ui.page.locator(".quick-input-widget input");
    await input.fill(`:${line + 1}:${column}`);
    await ui.page.keyboard.press("Enter");
    await ui.page
      .locator(".statusbar-item", { hasText: `Ln ${line + 1}, Col ${column}` })
      .first()
      .waitFor();
    await runCommand(ui.page, "Show or Focus Hover");
    const hover = ui.page
      .locator(".monaco-hover:not(.hidden) .monaco-hover-content", { hasText: "__syncthreads" })
      .first();
    await hover.waitFor({ timeout: 10_000 });
    const text = (await hover.textContent()) ?? "";
    assert.match(text, /__syncthreads/);
    assert.match(text, /barrier|block/i);
    await screenshot(ui.page, "lint-hover");
  });
});
