// Kernel names such as `<img src=x onerror=alert(1)>` and `k<float, 4>` through the Occupancy and
// profile panels' real bundles, in Chromium, under each panel's own page and CSP: the names show as
// text, no element or script comes from them, and the only CSP violation is a nonce-less script we
// plant on purpose. (The benchmark panel: test/unit/bench/panelRender.test.ts.)
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import * as esbuild from "esbuild";
import { chromium, type Browser, type Page } from "playwright-core";
import { webviewHtml } from "../../../extension/webviewHostHtml";
import { parseNcuCsv, type NcuDetailsLaunch } from "../../../server/profile/ncuCsv";
import { profileView } from "../../../server/profile/profileView";
import type { ShowMessage } from "../../../webview/occupancy/protocol";
import type { HostMessage } from "../../../webview/profile/protocol";

const root = join(__dirname, "../../..");
const ORIGIN = "https://panel.test";
const IMG = "<img src=x onerror=alert(1)>";
const TEMPLATE = "k<float, 4>";
const PWN = '<img src=x onerror="window.__pwned=1">';

let browser: Browser;
before(async () => {
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
  });
});
after(async () => {
  await browser?.close();
});

interface Panel {
  page: Page;
  fromPanel: unknown[];
}

// The stylesheets each panel's host links (extension/occupancyPanel.ts, profilePanel.ts).
const styles = { occupancy: ["occupancy"], profile: ["shared", "profile"] };

/** Loads a panel's page, bundle and stylesheet the way the webview does, with the VS Code API stand-in. */
async function openPanel(name: "occupancy" | "profile"): Promise<Panel> {
  const bundle = await esbuild.build({
    entryPoints: [join(root, `webview/${name}/main.ts`)],
    bundle: true,
    platform: "browser",
    format: "iife",
    write: false,
    logLevel: "silent",
  });
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const fromPanel: unknown[] = [];
  await page.exposeFunction("__toHost", (m: unknown) => fromPanel.push(m));
  page.on("pageerror", (e) => fromPanel.push({ type: "pageerror", message: e.message }));
  await page.addInitScript(`
    window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__toHost(m), getState: () => undefined, setState: () => {} });
    document.addEventListener("securitypolicyviolation", (e) =>
      window.__toHost({ type: "csp", directive: e.violatedDirective }));
  `);
  const html = webviewHtml({
    title: name,
    cspSource: ORIGIN,
    scriptUri: `${ORIGIN}/dist/webview/${name}.js`,
    styleUris: styles[name].map((css) => `${ORIGIN}/dist/webview/${css}.css`),
    nonce: "bm9uY2UtZm9yLXRoZS10ZXN0",
  }).replace("</body>", "<script>window.__injected = true;</script></body>");
  await page.route(`${ORIGIN}/**`, (route) => {
    const url = route.request().url();
    if (url.endsWith("/index.html")) return route.fulfill({ contentType: "text/html", body: html });
    if (url.endsWith(`/dist/webview/${name}.js`))
      return route.fulfill({ contentType: "text/javascript", body: bundle.outputFiles[0]!.text });
    const css = /\/dist\/webview\/(\w+)\.css$/.exec(url)?.[1];
    if (css && styles[name].includes(css))
      return route.fulfill({ contentType: "text/css", path: join(root, `webview/${css}/${css}.css`) });
    return route.fulfill({ status: 404, body: "" });
  });
  await page.goto(`${ORIGIN}/index.html`);
  await waitFor(fromPanel, "ready", (m) => m.type === "ready");
  // The panel's stylesheet loaded under the CSP (both panels pad the page 16px).
  assert.equal(await page.evaluate(() => getComputedStyle(document.body).paddingLeft), "16px");
  return { page, fromPanel };
}

async function waitFor(
  fromPanel: unknown[],
  what: string,
  ok: (m: { type?: string }) => boolean,
): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!fromPanel.some((m) => ok(m as { type?: string }))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(fromPanel)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function assertNothingRan(p: Panel): Promise<void> {
  assert.equal(await p.page.locator("#root img").count(), 0);
  assert.equal(await p.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
  assert.equal(
    await p.page.evaluate(() => (window as unknown as { __injected?: boolean }).__injected),
    undefined,
  );
  const csp = p.fromPanel.filter((m) => (m as { type?: string }).type === "csp");
  assert.ok(
    csp.every((v) => (v as { directive: string }).directive.startsWith("script-src")),
    JSON.stringify(csp),
  );
  assert.deepEqual(
    p.fromPanel.filter((m) => (m as { type?: string }).type === "pageerror"),
    [],
  );
}

describe("hostile kernel names in the Occupancy panel", () => {
  it("show as text in the heading and the file line", async () => {
    const p = await openPanel("occupancy");
    for (const [kernel, file] of [
      [IMG, `${TEMPLATE}.cu`],
      [TEMPLATE, `${PWN}.cu`],
      [PWN, "dir/<script>alert(1)</script>.cu"],
    ] as const) {
      const msg: ShowMessage = {
        type: "show",
        kernel,
        file,
        points: [{ arch: "sm_90", regs: 32, staticSmem: 1024, barriers: 1, block: 256, dynamicSmem: 0 }],
      };
      await p.page.evaluate((m) => window.postMessage(m, "*"), msg);
      await p.page.locator("#root", { hasText: kernel }).waitFor({ timeout: 20_000 });
      const text = (await p.page.locator("#root").textContent()) ?? "";
      assert.ok(text.includes(kernel) && text.includes(file), text.slice(0, 300));
      await assertNothingRan(p);
    }
    await p.page.close();
  });
});

describe("hostile kernel names in the profile panel", () => {
  it("a real export's launches renamed: heading and launch list are text", async () => {
    const exp = await parseNcuCsv({ path: join(root, "test/fixtures/profile/small.details.csv") });
    const launches = (exp.launches as NcuDetailsLaunch[]).map((l, i) =>
      profileView({ ...l, kernel: [IMG, TEMPLATE, PWN][i % 3]! }),
    );
    const p = await openPanel("profile");
    for (const selected of [0, 1, 2]) {
      const msg: HostMessage = {
        type: "profile",
        title: `${PWN}.csv`,
        file: `${TEMPLATE}.csv`,
        launches,
        selected,
        hotLines: null,
      };
      p.fromPanel.length = 0;
      await p.page.evaluate((m) => window.postMessage(m, "*"), msg);
      await waitFor(p.fromPanel, "rendered", (m) => m.type === "rendered" || m.type === "failed");
      assert.equal(await p.page.locator("h1.kernel").textContent(), launches[selected]!.kernel);
      assert.match(
        (await p.page.locator("select#launch").textContent()) ?? "",
        /<img src=x onerror=alert\(1\)>/,
      );
      await assertNothingRan(p);
    }
    // An error message from the host is text too.
    await p.page.evaluate((m) => window.postMessage(m, "*"), {
      type: "error",
      title: IMG,
      message: PWN,
    } as HostMessage);
    await p.page.locator("#root", { hasText: "onerror" }).first().waitFor();
    await assertNothingRan(p);
    await p.page.close();
  });
});

describe("hot lines read late in the profile panel", () => {
  it("the button asks the host; the answer replaces it, keeps the charts, and its file names are text", async () => {
    const exp = await parseNcuCsv({ path: join(root, "test/fixtures/profile/small.details.csv") });
    const launches = (exp.launches as NcuDetailsLaunch[]).map((l) => profileView(l));
    const p = await openPanel("profile");
    const msg: HostMessage = {
      type: "profile",
      title: "r.csv",
      file: "r.csv",
      launches,
      selected: 0,
      hotLines: null,
    };
    await p.page.evaluate((m) => window.postMessage(m, "*"), msg);
    const button = p.page.locator("button#hot-lines");
    await button.waitFor({ timeout: 20_000 });
    const charts = await p.page.locator("[data-chart] canvas").count();
    assert.ok(charts > 0);
    await button.click();
    await waitFor(p.fromPanel, "the request", (m) => m.type === "readHotLines");
    assert.equal(await button.isDisabled(), true);
    // A failure says why; the answer after it (the user asked again) marks the files.
    const failed: HostMessage = { type: "hotLines", hotLines: [], error: `ncu failed: ${PWN}` };
    await p.page.evaluate((m) => window.postMessage(m, "*"), failed);
    await p.page.locator("#hot-lines", { hasText: "ncu failed" }).waitFor();
    const late: HostMessage = { type: "hotLines", hotLines: [{ file: `${IMG}.cu`, lines: 3, samples: 9 }] };
    await p.page.evaluate((m) => window.postMessage(m, "*"), late);
    await p.page.locator("span#hot-lines", { hasText: `Hot lines marked in ${IMG}.cu (3)` }).waitFor();
    // Only the toolbar changed: the charts drawn with the report are still there.
    assert.equal(await p.page.locator("[data-chart] canvas").count(), charts);
    await assertNothingRan(p);
    await p.page.close();
  });
});
