// One panel's real webview bundle in Chromium, outside VS Code: the page the host writes
// (extension/webviewHostHtml.ts, its CSP and nonce), the bundle built as build.mjs builds it, the
// stylesheets the host links, a stand-in for acquireVsCodeApi that records what the page posts, and
// helpers to post the host's messages, wait for the page's answers and check that nothing hostile ran.
// The component suite (test/component/) uses it; helpers poll, none sleeps a fixed time.
import assert from "node:assert/strict";
import { join } from "node:path";
import * as esbuild from "esbuild";
import type { Browser, Page } from "playwright-core";
import { webviewHtml } from "../../extension/webviewHostHtml";
import { launchBrowser, withFailureScreenshot } from "./browser";
import { repoRoot } from "./codeServer";

export type PanelName = "bench" | "occupancy" | "profile" | "nsys";

/** The stylesheets each panel's host links, in cascade order (extension/<panel>Panel.ts, `styles`). */
export const panelStyles: Record<PanelName, string[]> = {
  bench: ["shared", "bench"],
  occupancy: ["occupancy"],
  profile: ["shared", "profile"],
  nsys: ["shared", "nsys"],
};

/** The webview's resource origin (`webview.cspSource`): the page, its script and styles come from it. */
export const ORIGIN = "https://panel.test";
const NONCE = "bm9uY2UtZm9yLXRoZS10ZXN0";
/** An inline script without the nonce, planted in every page: the CSP must stop it. */
const PLANTED = "<script>window.__injected = true;</script>";

/** Something the page posted, or what the harness saw happen in it (`csp`, `pageerror`, `console`). */
export interface PanelEvent {
  type?: string;
  [key: string]: unknown;
}

const bundles = new Map<PanelName, Promise<string>>();

/** webview/<panel>/main.ts bundled in memory with build.mjs's webview options, once per process. */
export function panelBundle(name: PanelName): Promise<string> {
  let b = bundles.get(name);
  if (!b) {
    b = esbuild
      .build({
        entryPoints: [join(repoRoot, `webview/${name}/main.ts`)],
        bundle: true,
        platform: "browser",
        target: "es2022",
        format: "iife",
        write: false,
        logLevel: "silent",
      })
      .then((r) => r.outputFiles[0]!.text);
    bundles.set(name, b);
  }
  return b;
}

// What VS Code provides inside a webview; init scripts are not subject to the page's CSP.
// (A string, not a function: tsx's helpers would not exist in the page.)
const VSCODE_API = `
  window.acquireVsCodeApi = () => ({
    postMessage: (m) => window.__toHost(m),
    getState: () => undefined,
    setState: () => {},
  });
  document.addEventListener("securitypolicyviolation", (e) =>
    window.__toHost({ type: "csp", directive: e.violatedDirective, blocked: e.blockedURI }));
`;

export class PanelPage {
  /** Everything the page posted and the harness saw, in order; tests may clear it. */
  readonly events: PanelEvent[] = [];

  constructor(readonly page: Page) {}

  /** Sends a message as the host does (`webview.postMessage`). */
  async post(message: unknown): Promise<void> {
    await this.page.evaluate((m) => window.postMessage(m, "*"), message);
  }

  /** The first event `ok` takes, polled until it comes (20 s). */
  async waitFor(what: string, ok: (m: PanelEvent) => boolean, timeoutMs = 20_000): Promise<PanelEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.events.find(ok);
      if (hit) return hit;
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}; the page said ${JSON.stringify(this.events)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Waits for the page's message of this type. */
  waitForType(type: string): Promise<PanelEvent> {
    return this.waitFor(type, (m) => m.type === type);
  }

  /** Element text, "" when it has none. */
  async text(selector: string): Promise<string> {
    return (await this.page.locator(selector).first().textContent()) ?? "";
  }

  /**
   * No markup or script came from the data: no <img> in the panel, the hostile names' handler and the
   * planted nonce-less script did not run, the only CSP violations are script ones, no page error.
   */
  async assertNothingRan(): Promise<void> {
    assert.equal(await this.page.locator("#root img").count(), 0, "an <img> came from the data");
    const flags = await this.page.evaluate(() => {
      const w = window as unknown as { __pwned?: number; __injected?: boolean };
      return { pwned: w.__pwned, injected: w.__injected };
    });
    assert.deepEqual(flags, { pwned: undefined, injected: undefined });
    const csp = this.events.filter((m) => m.type === "csp");
    assert.ok(
      csp.every((v) => String(v.directive).startsWith("script-src")),
      JSON.stringify(csp),
    );
    assert.deepEqual(
      this.events.filter((m) => m.type === "pageerror"),
      [],
    );
  }
}

export interface OpenOptions {
  viewport?: { width: number; height: number };
  /** The host's side: called with each message the page posts (answer with `panel.post`). */
  onMessage?: (message: PanelEvent, panel: PanelPage) => Promise<void> | void;
}

/** A fresh tab with the panel's page routed and the VS Code API stand-in; `load` it to open it. */
async function newPanelPage(browser: Browser, name: PanelName, opts: OpenOptions): Promise<PanelPage> {
  const script = await panelBundle(name);
  const page = await browser.newPage({ viewport: opts.viewport ?? { width: 1200, height: 900 } });
  const panel = new PanelPage(page);
  await page.exposeFunction("__toHost", async (m: PanelEvent) => {
    panel.events.push(m);
    await opts.onMessage?.(m, panel);
  });
  page.on("pageerror", (e) => panel.events.push({ type: "pageerror", message: e.message }));
  page.on("console", (m) => {
    if (m.type() === "error") panel.events.push({ type: "console", message: m.text() });
  });
  await page.addInitScript(VSCODE_API);
  const styles = panelStyles[name];
  const html = webviewHtml({
    title: name,
    cspSource: ORIGIN,
    scriptUri: `${ORIGIN}/dist/webview/${name}.js`,
    styleUris: styles.map((css) => `${ORIGIN}/dist/webview/${css}.css`),
    nonce: NONCE,
  }).replace("</body>", `${PLANTED}</body>`);
  await page.route(`${ORIGIN}/**`, (route) => {
    const url = route.request().url();
    if (url === `${ORIGIN}/index.html`) return route.fulfill({ contentType: "text/html", body: html });
    if (url === `${ORIGIN}/dist/webview/${name}.js`)
      return route.fulfill({ contentType: "text/javascript", body: script });
    const css = /\/dist\/webview\/(\w+)\.css$/.exec(url)?.[1];
    if (css && styles.includes(css))
      return route.fulfill({ contentType: "text/css", path: join(repoRoot, `webview/${css}/${css}.css`) });
    return route.fulfill({ status: 404, body: "" });
  });
  return panel;
}

async function load(panel: PanelPage): Promise<void> {
  await panel.page.goto(`${ORIGIN}/index.html`);
  await panel.waitForType("ready");
}

/** Opens the panel's page in a fresh tab and waits for its `ready`; the caller closes `panel.page`. */
export async function openPanel(
  browser: Browser,
  name: PanelName,
  opts: OpenOptions = {},
): Promise<PanelPage> {
  const panel = await newPanelPage(browser, name, opts);
  await load(panel);
  return panel;
}

/** One Chromium for a test file: `before(browser.start)`, `after(browser.stop)`, `browser.get()`. */
export function componentBrowser(): {
  start: () => Promise<void>;
  stop: () => Promise<void>;
  get: () => Browser;
} {
  let browser: Browser | undefined;
  return {
    start: async () => {
      browser = await launchBrowser();
    },
    stop: async () => {
      await browser?.close();
    },
    get: () => {
      if (!browser) throw new Error("the component browser was not started (before(browser.start))");
      return browser;
    },
  };
}

/**
 * Opens a fresh page of the panel (until its `ready`), runs `fn` on it and closes it; on failure,
 * loading included, a screenshot named after the test goes to test-results/ (its path is in the
 * error). Each test gets its own page, so none reads what another left.
 */
export async function withPanel(
  browser: Browser,
  name: PanelName,
  testName: string,
  fn: (panel: PanelPage) => Promise<void>,
  opts: OpenOptions = {},
): Promise<void> {
  const panel = await newPanelPage(browser, name, opts);
  try {
    await withFailureScreenshot(panel.page, `component-${testName}`, async () => {
      await load(panel);
      await fn(panel);
    });
  } finally {
    await panel.page.close();
  }
}
