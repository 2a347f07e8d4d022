// One-click benchmark on a machine with no GPU: the CodeLens runs the real flow and ends in a clear message.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { openFile, screenshot, withFailureScreenshot } from "../support/browser";
import { startUiSession, type UiSession } from "../support/uiSession";

let ui: UiSession;
before(async () => {
  ui = await startUiSession();
});
after(async () => {
  await ui?.close();
});

test("clicking ▶ Benchmark with no GPU shows what is missing, and the editor stays usable", async () => {
  await withFailureScreenshot(ui.page, "bench-no-gpu", async () => {
    await openFile(ui.page, "geglu.cu");
    // geglu.cu: the template geglu_kernel has no spec; geglu_half2_kernel (second lens) has one.
    const lens = ui.page.locator(".codelens-decoration a", { hasText: "Benchmark" }).nth(1);
    await lens.waitFor({ timeout: 15_000 });
    await lens.click();
    const toast = ui.page.locator(".notifications-toasts .notification-toast", {
      hasText: /no NVIDIA driver|libcuda/,
    });
    await toast.first().waitFor({ timeout: 30_000 });
    const text = (await toast.first().textContent()) ?? "";
    assert.match(text, /CUDA Kernel Dev/);
    assert.doesNotMatch(text, /\bat \S+:\d+:\d+/, "no stack trace in the message");
    await screenshot(ui.page, "bench-no-gpu");
    // The extension host is still alive: the lens is still there and the language server still answers.
    await ui.page.locator(".codelens-decoration a", { hasText: "Benchmark" }).first().waitFor();
  });
});
