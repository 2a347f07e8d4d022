// The profile panel and hot lines as a person sees them in code-server: an ncu details CSV export
// (launches 0, 1, 55 of the real H200 report) opened with "Open Nsight Compute Report or CSV…" shows
// the first launch's duration and its rule findings; asked from the panel, its source page sibling marks
// rms.cu's hottest line (38, the first load loop of rmsnorm_vec) in the gutter, with a hover giving the numbers.
import assert from "node:assert/strict";
import { chmodSync, cpSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, afterEach, before, test } from "node:test";
import {
  activeWebview,
  closeAllEditors,
  openFile,
  runCommand,
  screenshot,
  withFailureScreenshot,
} from "../support/browser";
import { repoRoot, scratchCopy } from "../support/codeServer";
import { startUiSession, type UiSession } from "../support/uiSession";

const FIX = join(repoRoot, "test/fixtures/profile");
let ui: UiSession;

before(async () => {
  const workspace = scratchCopy(join(repoRoot, "examples"));
  for (const f of [
    "rms.cu",
    "rms-profile.details.csv",
    "rms-profile.source.csv",
    "markup-names.details.csv",
    "h200-rmsnorm-full.details.csv",
    "h200-rmsnorm-full.raw.csv",
  ])
    cpSync(join(FIX, f), join(workspace, f));
  // The hot lines' test's own copy: Quick Open reopens a file from its history in the editor it was
  // last shown in (the report opened by the first test would come back as the panel, not as text).
  cpSync(join(FIX, "rms-profile.details.csv"), join(workspace, "rms-hot.details.csv"));
  cpSync(join(FIX, "rms-profile.source.csv"), join(workspace, "rms-hot.source.csv"));
  // nvidia-smi as a script printing the real H200 output: the view's parsing and layout, no GPU needed.
  const smi = join(workspace, "fake-nvidia-smi.sh");
  writeFileSync(smi, `#!/bin/sh\ncat '${join(FIX, "h200-nvidia-smi-q.xml")}'\n`);
  chmodSync(smi, 0o755);
  ui = await startUiSession({ workspace, settings: { "cudaKernelDev.nvidiaSmi.path": smi } });
});
after(async () => {
  await ui?.close();
});
// Each test opens what it reads: no panel or source tab is left for the next one.
afterEach(async () => {
  await closeAllEditors(ui.page);
});

/** rms.cu, then the export `stem`.details.csv opened with the command; returns the panel. */
async function openRmsProfile(stem: string) {
  await openFile(ui.page, "rms.cu");
  await openFile(ui.page, `${stem}.details.csv`);
  await runCommand(ui.page, "CUDA Kernel Dev: Open Nsight Compute Report or CSV");
  return activeWebview(ui.page);
}

test("an ncu CSV export opens in the profile panel with the right duration and findings", async () => {
  await withFailureScreenshot(ui.page, "profile-panel", async () => {
    const view = await openRmsProfile("rms-profile");
    const duration = view.locator("#duration");
    await duration.waitFor({ timeout: 30_000 });
    assert.equal((await duration.textContent())?.trim(), "Duration 76.10 µs");
    assert.equal(
      await view.locator("h1.kernel").textContent(),
      "rmsnorm_scalar(__nv_bfloat16 *, const __nv_bfloat16 *, const __nv_bfloat16 *, float, int)",
    );
    const findings = view.locator("#findings li");
    assert.equal(await findings.count(), 8);
    // Sorted by estimated speedup: the 49.19 % ones first, MemoryL2Compression (9.295 %) after them.
    assert.match((await findings.nth(0).textContent()) ?? "", /est\. speedup 49\.2 %/);
    assert.match(
      (await view.locator("#findings").textContent()) ?? "",
      /MemoryL2Compression.*est\. speedup 9\.3 %/,
    );
    await view.locator('[data-chart="speed-of-light"] canvas').waitFor();
    await view.locator('[data-chart="occupancy"] canvas').waitFor();
    await screenshot(ui.page, "profile-panel");
  });
});

test("asked from the panel, the source page marks the hottest line of rms.cu in the gutter, with a hover", async () => {
  await withFailureScreenshot(ui.page, "profile-hot-lines", async () => {
    // The report opened without reading its source page: the panel (the active editor) offers it.
    const view = await openRmsProfile("rms-hot");
    const ask = view.locator("button#hot-lines");
    await ask.waitFor({ timeout: 30_000 });
    assert.equal((await ask.textContent())?.trim(), "Mark hot lines");
    await ask.click();
    await view
      .locator("span#hot-lines", { hasText: /Hot lines marked in .*\brms\.cu \(\d+\)/ })
      .waitFor({ timeout: 30_000 });
    await ui.page.locator('.tabs-container .tab[aria-label^="rms.cu"]').first().click();
    await runCommand(ui.page, "Go to Line/Column...");
    await ui.page.locator(".quick-input-widget input").fill(":38:5");
    await ui.page.keyboard.press("Enter");
    const editor = ui.page.locator(".monaco-editor").first();
    const lineTop = async (n: number): Promise<string> =>
      editor
        .locator(".margin-view-overlays > div", { has: ui.page.locator(`.line-numbers:text-is("${n}")`) })
        .first()
        .evaluate((e) => (e as HTMLElement).style.top);
    const glyphs = editor.locator(".cgmr");
    await glyphs.first().waitFor({ timeout: 20_000 });
    const tops = await glyphs.evaluateAll((els) =>
      els.map((e) => (e as HTMLElement).style.top || (e.parentElement as HTMLElement).style.top),
    );
    assert.ok(
      tops.includes(await lineTop(38)),
      `gutter marks at ${tops.join(", ")}; line 38 at ${await lineTop(38)}`,
    );
    assert.ok(!tops.includes(await lineTop(37)), "no mark on line 37");
    await screenshot(ui.page, "profile-hot-lines");
    // The cursor is on line 38 (Go to Line above): ask for the hover from the keyboard.
    await ui.page
      .locator(".monaco-editor .view-lines")
      .first()
      .click({ position: { x: 60, y: 5 } })
      .catch(() => undefined);
    await runCommand(ui.page, "Go to Line/Column...");
    await ui.page.locator(".quick-input-widget input").fill(":38:30");
    await ui.page.keyboard.press("Enter");
    await runCommand(ui.page, "Show or Focus Hover");
    const hover = ui.page.locator(".monaco-hover", { hasText: "Nsight Compute: line 38" });
    await hover.waitFor({ timeout: 15_000 });
    assert.match((await hover.textContent()) ?? "", /warp stall samples: 1480/);
    await screenshot(ui.page, "profile-hot-line-hover");
  });
});

test("kernel names with markup are shown as text, never as HTML", async () => {
  await withFailureScreenshot(ui.page, "profile-markup-names", async () => {
    await openFile(ui.page, "markup-names.details.csv");
    await runCommand(ui.page, "CUDA Kernel Dev: Open Nsight Compute Report or CSV");
    const view = activeWebview(ui.page);
    const h1 = view.locator("h1.kernel", { hasText: "onerror" });
    await h1.waitFor({ timeout: 30_000 });
    assert.equal(await h1.textContent(), "<img src=x onerror=alert(1)>");
    assert.equal(await view.locator("img").count(), 0);
    await view.locator("select#launch").selectOption("1");
    await view.locator("h1.kernel", { hasText: "k<float, 4>" }).waitFor();
    assert.match(
      (await view.locator("select#launch").textContent()) ?? "",
      /\[0\] <img src=x onerror=alert\(1\)>/,
    );
    await screenshot(ui.page, "profile-markup-names");
  });
});

test("CUDA Devices view lists the GPU from nvidia-smi's XML (the real H200 output)", async () => {
  await withFailureScreenshot(ui.page, "profile-devices", async () => {
    await runCommand(ui.page, "Explorer: Focus on CUDA Devices View");
    const device = ui.page.locator(".monaco-list-row", { hasText: "0: NVIDIA H200" }).first();
    await device.waitFor({ timeout: 20_000 });
    assert.match((await device.textContent()) ?? "", /Hopper.*140\.4 GiB/);
    await ui.page
      .locator(".monaco-list-row", { hasText: "Driver" })
      .filter({ hasText: "580.159.04, CUDA 13.0" })
      .first()
      .waitFor();
    await device.click();
    await ui.page
      .locator(".monaco-list-row", { hasText: "Memory" })
      .filter({ hasText: "0.0 GiB used of 140.4 GiB" })
      .first()
      .waitFor({ timeout: 10_000 });
    await ui.page
      .locator(".monaco-list-row", { hasText: "SM clock" })
      .filter({ hasText: "375 MHz (max 1980 MHz)" })
      .first()
      .waitFor();
    await screenshot(ui.page, "profile-devices");
  });
});

test("with the raw page beside it, the panel adds the device, roofline and warp-stall charts", async () => {
  await withFailureScreenshot(ui.page, "profile-roofline", async () => {
    await openFile(ui.page, "h200-rmsnorm-full.details.csv");
    await runCommand(ui.page, "CUDA Kernel Dev: Open Nsight Compute Report or CSV");
    const view = activeWebview(ui.page);
    await view.locator('[data-chart="roofline"] canvas').waitFor({ timeout: 30_000 });
    await view.locator('[data-chart="warp-stalls"] canvas').waitFor();
    assert.match((await view.locator("dl").first().textContent()) ?? "", /NVIDIA H200 \(CC 9\.0\), 132 SMs/);
    assert.equal(await view.locator("select#launch option").count(), 110);
    await view.locator("select#launch").selectOption("55");
    await view.locator("h1.kernel", { hasText: "rmsnorm_vec" }).waitFor();
    await view.locator('[data-chart="roofline"]').scrollIntoViewIfNeeded();
    await screenshot(ui.page, "profile-roofline-stalls");
  });
});

test("profiling without ncu installed says so, with a way to the setting", async () => {
  await withFailureScreenshot(ui.page, "profile-no-ncu", async () => {
    await openFile(ui.page, "rms.cu");
    await runCommand(ui.page, "Go to Line/Column...");
    await ui.page.locator(".quick-input-widget input").fill(":38:5");
    await ui.page.keyboard.press("Enter");
    await runCommand(ui.page, "CUDA Kernel Dev: Profile Kernel with Nsight Compute");
    const toast = ui.page.locator(".notifications-toasts .notification-toast", {
      hasText: "Nsight Compute CLI not found",
    });
    await toast.waitFor({ timeout: 120_000 });
    await toast.locator(".monaco-button", { hasText: "Open Settings" }).waitFor();
    await screenshot(ui.page, "profile-no-ncu");
  });
});
