// The results panel's real bundle in Chromium under the panel's own CSP, fed the recorded results
// fixture: it says ready, draws every chart, renders hostile strings as text, and runs no script
// without the nonce. Leaves a screenshot in test-results/bench-panel.png.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as esbuild from "esbuild";
import { chromium, type Browser, type Page } from "playwright-core";
import { webviewHtml } from "../../../extension/webviewHostHtml";
import type { BenchRunResults, HistoryEntry } from "../../../server/bench/results";

const root = join(__dirname, "../../..");
const fixtures = join(root, "test/fixtures/bench");
const results = JSON.parse(
  readFileSync(join(fixtures, "results-rmsnorm-synthetic.json"), "utf8"),
) as BenchRunResults;
const history = readFileSync(join(fixtures, "bench-history-synthetic.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l) as HistoryEntry);

const ORIGIN = "https://panel.test";
let browser: Browser;
let page: Page;
const fromPanel: unknown[] = [];

async function waitFor<T>(what: string, probe: () => T | undefined): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(fromPanel)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

before(async () => {
  const bundle = await esbuild.build({
    entryPoints: [join(root, "webview/bench/main.ts")],
    bundle: true,
    platform: "browser",
    format: "iife",
    write: false,
    logLevel: "silent",
  });
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
  });
  page = await browser.newPage({ viewport: { width: 1200, height: 1100 } });
  await page.exposeFunction("__toHost", (m: unknown) => fromPanel.push(m));
  page.on("pageerror", (e) => fromPanel.push({ type: "pageerror", message: e.message }));
  page.on("console", (m) => {
    if (m.type() === "error") fromPanel.push({ type: "console", message: m.text() });
  });
  // What VS Code provides inside a webview; init scripts are not subject to the page's CSP.
  // (A string, not a function: tsx's helpers would not exist in the page.)
  await page.addInitScript(`
    window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__toHost(m) });
    document.addEventListener("securitypolicyviolation", (e) =>
      window.__toHost({ type: "csp", directive: e.violatedDirective, blocked: e.blockedURI }));
  `);
  const html = webviewHtml({
    title: "Benchmark",
    cspSource: ORIGIN,
    scriptUri: `${ORIGIN}/dist/webview/bench.js`,
    styleUris: [`${ORIGIN}/dist/webview/shared.css`, `${ORIGIN}/dist/webview/bench.css`],
    nonce: "dGVzdC1ub25jZS0xMjM0NQ==",
  }).replace(
    "</body>",
    // An inline script without the nonce: the CSP must stop it.
    "<script>window.__injected = true;</script></body>",
  );
  await page.route(`${ORIGIN}/**`, (route) => {
    const url = route.request().url();
    if (url.endsWith("/index.html")) return route.fulfill({ contentType: "text/html", body: html });
    if (url.endsWith("/dist/webview/bench.js"))
      return route.fulfill({ contentType: "text/javascript", body: bundle.outputFiles[0]!.text });
    const css = /\/dist\/webview\/(shared|bench)\.css$/.exec(url)?.[1];
    if (css) return route.fulfill({ contentType: "text/css", path: join(root, `webview/${css}/${css}.css`) });
    return route.fulfill({ status: 404, body: "" });
  });
  await page.goto(`${ORIGIN}/index.html`);
});

after(async () => {
  await browser?.close();
});

test("ready handshake, then every chart from recorded results", async () => {
  await waitFor("ready", () => fromPanel.find((m) => (m as { type?: string }).type === "ready"));
  await page.evaluate((msg) => window.postMessage(msg, "*"), { type: "show", results, history });
  const rendered = (await waitFor("rendered", () =>
    fromPanel.find((m) => (m as { type?: string }).type === "rendered"),
  )) as { charts: string[] };
  assert.deepEqual(rendered.charts, ["time", "speedup", "bandwidth", "history"]);
  assert.equal(await page.locator("canvas").count(), 4);
  // The panel's stylesheet loaded under the CSP: the charts sit in its grid.
  assert.equal(await page.locator(".charts").evaluate((e) => getComputedStyle(e).display), "grid");
  assert.equal(await page.locator("tbody tr").count(), results.points.length);
  assert.equal(await page.locator("h1").textContent(), "rmsnorm_bf16x2_kernel");
  assert.match(
    (await page.locator("[data-chart=history] h2").textContent()) ?? "",
    /History of rmsnorm_bf16x2_kernel \(6 runs\)/,
  );
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
  mkdirSync(join(root, "test-results"), { recursive: true });
  await page.screenshot({ path: join(root, "test-results/bench-panel.png"), fullPage: true });
});

test("strings from results are text, never markup; scripts without the nonce do not run", async () => {
  const hostile = structuredClone(results);
  hostile.instance = '<img src=x onerror="window.__pwned=1">kernel';
  hostile.points[0]!.label = "<b>rows</b>";
  fromPanel.length = 0;
  await page.evaluate((msg) => window.postMessage(msg, "*"), { type: "show", results: hostile, history });
  await waitFor("rendered", () => fromPanel.find((m) => (m as { type?: string }).type === "rendered"));
  assert.equal(await page.locator("h1").textContent(), hostile.instance);
  assert.equal(await page.locator("#root img").count(), 0);
  assert.equal(await page.locator("tbody b").count(), 0);
  assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
  assert.equal(
    await page.evaluate(() => (window as unknown as { __injected?: boolean }).__injected),
    undefined,
  );
  const csp = fromPanel.filter((m) => (m as { type?: string }).type === "csp");
  // The only violation is the nonce-less inline script we planted.
  assert.ok(
    csp.every((v) => (v as { directive: string }).directive.startsWith("script-src")),
    JSON.stringify(csp),
  );
  // A malformed message is ignored, not rendered.
  fromPanel.length = 0;
  await page.evaluate(() => window.postMessage({ type: "show", results: "nope" }, "*"));
  await page.evaluate(() => window.postMessage({ type: "error", message: "<i>x</i>" }, "*"));
  await page.waitForSelector("#root p.bad");
  assert.equal(await page.locator("#root p.bad").textContent(), "<i>x</i>");
});
