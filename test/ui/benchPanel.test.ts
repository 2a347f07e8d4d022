// The benchmark results panel in code-server, from results recorded on an H100 by `cuda-kernel-dev bench --out`.
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
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
import { repoRoot } from "../support/codeServer";
import { startUiSession, type UiSession } from "../support/uiSession";

const fixtures = join(repoRoot, "test/fixtures/bench");
let ui: UiSession;
before(async () => {
  ui = await startUiSession();
  copyFileSync(join(fixtures, "results-rmsnorm-h100.json"), join(ui.workspace, "results-rmsnorm.json"));
  copyFileSync(join(fixtures, "results-rmsnorm-torch-h100.json"), join(ui.workspace, "results-torch.json"));
  // What the panel is sent after the first size of a four-size sweep (runBenchmark's snapshot).
  const full = JSON.parse(readFileSync(join(fixtures, "results-rmsnorm-h100.json"), "utf8")) as {
    points: unknown[];
  };
  const partial = { ...full, points: full.points.slice(0, 1), pendingSizes: full.points.length - 1 };
  writeFileSync(join(ui.workspace, "results-partial.json"), JSON.stringify(partial));
  mkdirSync(join(ui.workspace, ".cuda-kernel-dev"), { recursive: true });
  copyFileSync(
    join(fixtures, "bench-history-synthetic.jsonl"),
    join(ui.workspace, ".cuda-kernel-dev/bench-history.jsonl"),
  );
});
after(async () => {
  await ui?.close();
});
// The panel is per kernel and all three files are rmsnorm's: a panel left open would be revealed and
// updated, and the test could read the previous results before the update.
afterEach(async () => {
  await closeAllEditors(ui.page);
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

test("a sweep in progress shows its first size and says how many are still running", async () => {
  await withFailureScreenshot(ui.page, "bench-panel-partial", async () => {
    await openFile(ui.page, "results-partial.json");
    await runCommand(ui.page, "CUDA Kernel Dev: Open Benchmark Results");
    const view = activeWebview(ui.page);
    await view.locator("section[data-chart=time] canvas").first().waitFor({ timeout: 20_000 });
    await view.getByText(/running: 1 of 4 sizes done/).waitFor({ timeout: 20_000 });
    const text = (await view.locator("body").textContent()) ?? "";
    assert.doesNotMatch(text, /all sizes ran/);
    await screenshot(ui.page, "bench-panel-partial");
  });
});

test("a PyTorch baseline: its times, the speedups over it and the check against it", async () => {
  await withFailureScreenshot(ui.page, "bench-panel-torch", async () => {
    await openFile(ui.page, "results-torch.json");
    await runCommand(ui.page, "CUDA Kernel Dev: Open Benchmark Results");
    const view = activeWebview(ui.page);
    await view.locator("section[data-chart=speedup] canvas").first().waitFor({ timeout: 20_000 });
    const head = (await view.locator("thead").textContent()) ?? "";
    assert.match(head, /PyTorch.*vs PyTorch.*compiled.*vs compiled.*max abs err.*cosine/);
    const first = (await view.locator("tbody tr").first().textContent()) ?? "";
    assert.match(first, /7\.52 µs.*1\.04×.*5\.79 µs.*0\.80×.*0\.016/);
    const text = (await view.locator("body").textContent()) ?? "";
    assert.match(
      text,
      /F\.rms_norm\(in_\.view\(rows, cols\), \(cols,\), weight, eps\) \(and torch\.compile\), torch 2\.11/,
    );
    await screenshot(ui.page, "bench-panel-torch");
  });
});
