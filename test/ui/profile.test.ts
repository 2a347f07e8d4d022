// The profile panel and hot lines as a person sees them in code-server: an ncu details CSV export
// (launches 0, 1, 55 of the real H200 report) opened with "Open Nsight Compute Report or CSV…" shows
// the first launch's duration and its rule findings; its source page sibling marks rms.cu's hottest
// line (38, the first load loop of rmsnorm_vec) in the gutter, with a hover giving the numbers.
import assert from "node:assert/strict";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { activeWebview, openFile, runCommand, screenshot, withFailureScreenshot } from "../support/browser";
import { repoRoot, scratchCopy } from "../support/codeServer";
import { startUiSession, type UiSession } from "../support/uiSession";

const FIX = join(repoRoot, "test/fixtures/profile");
let ui: UiSession;

before(async () => {
  const workspace = scratchCopy(join(repoRoot, "examples"));
  for (const f of ["rms.cu", "rms-profile.details.csv", "rms-profile.source.csv"])
    cpSync(join(FIX, f), join(workspace, f));
  ui = await startUiSession({ workspace });
});
after(async () => {
  await ui?.close();
});

test("an ncu CSV export opens in the profile panel with the right duration and findings", async () => {
  await withFailureScreenshot(ui.page, "profile-panel", async () => {
    await openFile(ui.page, "rms.cu");
    await openFile(ui.page, "rms-profile.details.csv");
    await runCommand(ui.page, "CUDA Kernel Dev: Open Nsight Compute Report or CSV");
    const view = activeWebview(ui.page);
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

test("the source page marks the hottest line of rms.cu in the gutter, with a hover", async () => {
  await withFailureScreenshot(ui.page, "profile-hot-lines", async () => {
    await openFile(ui.page, "rms.cu");
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
    await editor
      .locator(".view-line", {
        hasText:
          "for (int i = threadIdx.x; i < vh; i += blockDim.x) { float2 v = __bfloat1622float2(x[i]); s +=",
      })
      .first()
      .hover();
    const hover = ui.page.locator(".monaco-hover", { hasText: "Nsight Compute: line 38" });
    await hover.waitFor({ timeout: 15_000 });
    assert.match((await hover.textContent()) ?? "", /warp stall samples: 1480/);
    await screenshot(ui.page, "profile-hot-line-hover");
  });
});
