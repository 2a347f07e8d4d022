// The Nsight Systems panel's real bundle in Chromium under its own page and CSP, fed a report whose
// kernel and NVTX range are named `<img src=x onerror=...>`: the tables, the canvas labels and the
// hover tooltip show the names as text, nothing runs, and the page's only requests are windows.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, it } from "node:test";
import * as esbuild from "esbuild";
import { chromium, type Browser, type Page } from "playwright-core";
import { NsysTimelineData } from "../../../extension/nsysPanelWindow";
import { webviewHtml } from "../../../extension/webviewHostHtml";
import type { NsysTrace } from "../../../server/profile/nsysReport";
import { summarizeTrace } from "../../../server/profile/nsysReportSummary";
import { isNsysRequest } from "../../../webview/nsys/protocol";

const root = join(__dirname, "../../..");
const ORIGIN = "https://panel.test";
const PWN = '<img src=x onerror="window.__pwned=1">';

const trace: NsysTrace = {
  ops: [0, 1, 2].map((i) => ({
    kind: "kernel" as const,
    startNs: 1000 + i * 400_000,
    endNs: 1000 + i * 400_000 + 300_000,
    deviceId: 0,
    streamId: 7,
    correlationId: i,
    globalPid: 1,
    name: PWN,
    shortName: PWN,
    grid: [4, 1, 1] as [number, number, number],
    block: [128, 1, 1] as [number, number, number],
  })),
  calls: [],
  ranges: [{ name: PWN, domain: null, style: "PushPop", startNs: 0, endNs: 1_300_000, globalTid: 1 }],
  gpus: [{ id: 0, name: "GPU" }],
};

let browser: Browser;
let page: Page;
const fromPanel: { type?: string }[] = [];

before(async () => {
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu"],
  });
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const bundle = await esbuild.build({
    entryPoints: [join(root, "webview/nsys/main.ts")],
    bundle: true,
    platform: "browser",
    format: "iife",
    write: false,
    logLevel: "silent",
  });
  const html = webviewHtml({
    title: "nsys",
    cspSource: ORIGIN,
    scriptUri: `${ORIGIN}/nsys.js`,
    styleUris: [`${ORIGIN}/shared.css`, `${ORIGIN}/nsys.css`],
    nonce: "bm9uY2UtZm9yLXRoZS10ZXN0",
  });
  const data = new NsysTimelineData(trace);
  await page.exposeFunction("__toHost", async (m: { type?: string }) => {
    fromPanel.push(m);
    // The host's side: windows answered from the same data the extension keeps.
    if (isNsysRequest(m) && m.type === "window")
      await page.evaluate((w) => window.postMessage(w, "*"), data.window(m));
    if (m.type === "ready")
      await page.evaluate(
        (r) => window.postMessage(r, "*"),
        data.report(summarizeTrace(PWN, trace), PWN, `${PWN}.nsys-rep`, PWN),
      );
  });
  page.on("pageerror", (e) => fromPanel.push({ type: `pageerror ${e.message}` }));
  await page.addInitScript(`
    window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__toHost(m) });
    document.addEventListener("securitypolicyviolation", () => window.__toHost({ type: "csp" }));
  `);
  await page.route(`${ORIGIN}/**`, (route) => {
    const url = route.request().url();
    if (url.endsWith("/index.html")) return route.fulfill({ contentType: "text/html", body: html });
    if (url.endsWith("/nsys.js"))
      return route.fulfill({ contentType: "text/javascript", body: bundle.outputFiles[0]!.text });
    const css = /\/(shared|nsys)\.css$/.exec(url)?.[1];
    if (css) return route.fulfill({ contentType: "text/css", path: join(root, `webview/${css}/${css}.css`) });
    return route.fulfill({ status: 404, body: "" });
  });
  await page.goto(`${ORIGIN}/index.html`);
});
after(async () => {
  await browser?.close();
});

it("shows hostile kernel and range names as text in the tables, the timeline and its tooltip", async () => {
  await page.locator("canvas.timeline[data-boxes]").waitFor({ timeout: 20_000 });
  assert.equal(await page.locator("#kernels a.kernel-name").first().textContent(), PWN);
  assert.equal(await page.locator("h1").textContent(), PWN);
  assert.match((await page.locator("#nvtx").textContent()) ?? "", /<img src=x/);
  // Hover the middle kernel (lane under the NVTX row): the tooltip names it, as text.
  const box = (await page.locator("canvas.timeline").boundingBox())!;
  const lanesTop = 20 + 16 + 4;
  const x = 120 + (box.width - 120) * ((1000 + 400_000 + 150_000) / 1_301_000);
  await page.mouse.move(box.x + x, box.y + lanesTop + 13);
  await page.locator(".tip.shown").waitFor({ timeout: 5_000 });
  assert.equal(await page.locator(".tip .tip-name").textContent(), PWN);
  assert.match((await page.locator(".tip").textContent()) ?? "", /grid \(4, 1, 1\) block \(128, 1, 1\)/);
  await page.mouse.click(box.x + x, box.y + lanesTop + 13);
  await page.waitForTimeout(100);
  assert.ok(fromPanel.some((m) => m.type === "openKernel" && (m as { name?: string }).name === PWN));
  assert.equal(await page.locator("#root img").count(), 0);
  assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
  const odd = fromPanel.filter((m) => !["ready", "rendered", "window", "openKernel"].includes(m.type ?? ""));
  assert.deepEqual(odd, []);
});
