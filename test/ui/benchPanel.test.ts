// The benchmark results panel in code-server, from results recorded on an H100 by `cuda-kernel-dev bench --out`.
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { activeWebview, openFile, runCommand, screenshot, withFailureScreenshot } from "../support/browser";
import { repoRoot } from "../support/codeServer";
import { startUiSession, type UiSession } from "../support/uiSession";

const fixtures = join(repoRoot, "test/fixtures/bench");
let ui: UiSession;
before(async () => {
  ui = await startUiSession();
  copyFileSync(join(fixtures, "results-rmsnorm-h100.json"), join(ui.workspace, "results-rmsnorm.json"));
  mkdirSync(join(ui.workspace, ".cuda-kernel-dev"), { recursive: true });
  copyFileSync(
    join(fixtures, "bench-history-synthetic.jsonl"),
    join(ui.workspace, ".cuda-kernel-dev/bench-history.jsonl"),
  );
});
after(async () => {
  await ui?.close();
});

test("Open Benchmark Results shows the time, speedup, bandwidth and history charts", async () => {
  await withFailureScreenshot(ui.page, "bench-panel", async () => {
    await openFile(ui.page, "results-rmsnorm.json");
    await runCommand(ui.page, "CUDA Kernel Dev: Open Benchmark Results");
    const view = activeWebview(ui.page);
    for (const chart of ["time", "speedup", "bandwidth", "history"]) {
      await view.locator(`section[data-chart=${chart}] canvas`).first().waitFor({ timeout: 20_000 });
    }
    const text = (await view.locator("body").textContent()) ?? "";
    assert.match(text, /rmsnorm/);
    await screenshot(ui.page, "bench-panel");
  });
});
