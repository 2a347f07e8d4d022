// The results panel's real bundle in Chromium under the panel's own CSP (test/support/webviewPage.ts),
// fed the recorded results fixture: it says ready, draws every chart, renders hostile strings as text,
// and runs no script without the nonce. Leaves a screenshot in test-results/bench-panel.png.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { BenchRunResults, HistoryEntry } from "../../server/bench/results";
import { repoRoot } from "../support/codeServer";
import { componentBrowser, withPanel } from "../support/webviewPage";

const fixtures = join(repoRoot, "test/fixtures/bench");
const results = JSON.parse(
  readFileSync(join(fixtures, "results-rmsnorm-synthetic.json"), "utf8"),
) as BenchRunResults;
const history = readFileSync(join(fixtures, "bench-history-synthetic.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l) as HistoryEntry);

const browser = componentBrowser();
before(browser.start);
after(browser.stop);
const viewport = { width: 1200, height: 1100 };

test("ready handshake, then every chart from recorded results", async () => {
  await withPanel(
    browser.get(),
    "bench",
    "bench charts",
    async (p) => {
      const { page } = p;
      await p.post({ type: "show", results, history });
      const rendered = (await p.waitForType("rendered")) as { charts?: string[] };
      assert.deepEqual(rendered.charts, ["time", "speedup", "bandwidth", "history"]);
      assert.equal(await page.locator("canvas").count(), 4);
      // The panel's stylesheet loaded under the CSP: the charts sit in its grid.
      assert.equal(await page.locator(".charts").evaluate((e) => getComputedStyle(e).display), "grid");
      assert.equal(await page.locator("tbody tr").count(), results.points.length);
      assert.equal(await p.text("h1"), "rmsnorm_bf16x2_kernel");
      assert.match(await p.text("[data-chart=history] h2"), /History of rmsnorm_bf16x2_kernel \(6 runs\)/);
      // The charts really drew: their canvases hold non-blank pixels.
      const inked = await page.evaluate<number[]>(`
        [...document.querySelectorAll("canvas")].map((c) => {
          const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
          let n = 0;
          for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
          return n;
        })
      `);
      assert.ok(
        inked.every((n) => n > 1000),
        `pixels per chart: ${inked.join(", ")}`,
      );
      mkdirSync(join(repoRoot, "test-results"), { recursive: true });
      await page.screenshot({ path: join(repoRoot, "test-results/bench-panel.png"), fullPage: true });
    },
    { viewport },
  );
});

test("strings from results are text, never markup; scripts without the nonce do not run", async () => {
  await withPanel(
    browser.get(),
    "bench",
    "bench hostile strings",
    async (p) => {
      const hostile = structuredClone(results);
      hostile.instance = '<img src=x onerror="window.__pwned=1">kernel';
      hostile.points[0]!.label = "<b>rows</b>";
      await p.post({ type: "show", results: hostile, history });
      await p.waitForType("rendered");
      assert.equal(await p.text("h1"), hostile.instance);
      assert.equal(await p.page.locator("tbody b").count(), 0);
      await p.assertNothingRan();
      // A malformed message is ignored, not rendered; an error message is text.
      await p.post({ type: "show", results: "nope" });
      await p.post({ type: "error", message: "<i>x</i>" });
      await p.page.waitForSelector("#root p.bad");
      assert.equal(await p.text("#root p.bad"), "<i>x</i>");
      await p.assertNothingRan();
    },
    { viewport },
  );
});
