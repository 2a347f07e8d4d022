// Webview lockdown, checked on what the one host (extension/webviewHost.ts) does to a webview, for
// every panel the build makes (each webview/<panel>/main.ts, as build.mjs finds them), against a fake
// vscode.Webview (test/support/fakeVscode.ts): CSP default-src 'none' with a fresh nonce per load, the
// script only from dist/webview, stylesheets only from the webview's origin, localResourceRoots =
// dist/webview, a title shown only as text, and every message from the page that does not match the
// protocol dropped. No other extension file creates a webview, and the panel code has no HTML sink,
// so a kernel name like `<img src=x onerror=alert(1)>` can only ever be text.
// (The panels rendering such names in a browser: the component suite, test/component/, and
// test/ui/profile.test.ts.)
import { createdPanels, FakePanel, FakeUri, fakeLog } from "../../support/fakeVscode";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, it } from "node:test";
import type * as vscode from "vscode";
import { type PanelOptions, WebviewHost } from "../../../extension/webviewHost";
import { isPanelMessage } from "../../../webview/shared/protocol";

const REPO = join(__dirname, "..", "..", "..");
const src = (dir: string): { file: string; text: string }[] =>
  readdirSync(join(REPO, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => ({ file: join(dir, f), text: readFileSync(join(REPO, dir, f), "utf8") }));

/** The panels: each webview/<panel>/ with a main.ts, the rule build.mjs bundles them by. */
const PANELS = readdirSync(join(REPO, "webview"), { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(REPO, "webview", d.name, "main.ts")))
  .map((d) => d.name as PanelOptions["bundle"]);

const EXT = new FakeUri("/ext");
const ROOT = "https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview";

/** A host for `bundle` on a fresh fake panel (or through WebviewHost.open), with its log. */
function host(bundle: PanelOptions["bundle"], more: Partial<PanelOptions> & { open?: boolean } = {}) {
  const log = fakeLog();
  const options: PanelOptions = {
    extensionUri: EXT as unknown as vscode.Uri,
    log: log as unknown as vscode.LogOutputChannel,
    bundle,
    styles: ["shared", bundle],
    title: bundle,
    label: `${bundle} panel`,
    ...more,
  };
  const state: { type: string; bundle: string; shown?: number } = { type: "state-of", bundle };
  const h = more.open
    ? WebviewHost.open("Tab title", options, state)
    : new WebviewHost(
        new FakePanel(`cudaKernelDev.${bundle}`, "t") as unknown as vscode.WebviewPanel,
        options,
        state,
      );
  return { h, log, webview: (h.panel as unknown as FakePanel).webview, state };
}

/** The page's CSP directives, by name. */
function csp(html: string): Map<string, string[]> {
  const content = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
  assert.ok(content, "a CSP meta tag");
  return new Map(
    content.split(";").map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name!, values] as const;
    }),
  );
}

/** Checks one page: CSP, nonce on every script, scripts only from `scriptUri`, styles only from `styleUris`. */
function checkPage(html: string, scriptUri: string, styleUris: string[], cspSource: string): string {
  const directives = csp(html);
  const nonce = /^'nonce-(.+)'$/.exec(directives.get("script-src")?.join(" ") ?? "")?.[1];
  assert.ok(nonce && Buffer.from(nonce, "base64").length >= 16, `a nonce of 16 bytes or more: ${nonce}`);
  assert.deepEqual(directives.get("default-src"), ["'none'"]);
  assert.deepEqual(directives.get("style-src"), [cspSource]);
  // Sources other than the nonce, the webview's own resource origin and data: images would let
  // inline code or the network in.
  for (const [name, values] of directives)
    for (const v of values)
      assert.ok(
        ["'none'", `'nonce-${nonce}'`, cspSource].includes(v) ||
          (v === "data:" && /^(img|font)-src$/.test(name)),
        `${name} allows ${v}`,
      );
  assert.ok(!directives.has("connect-src"), "no network from the panel");
  const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]!);
  assert.equal(scripts.length, 1, "one script");
  assert.equal(/nonce="([^"]+)"/.exec(scripts[0]!)?.[1], nonce);
  assert.equal(/src="([^"]+)"/.exec(scripts[0]!)?.[1], scriptUri);
  assert.ok(!/<style\b|\sstyle=/.test(html), "no inline styles");
  const sheets = [...html.matchAll(/<link\b([^>]*)>/g)].map((m) => /href="([^"]+)"/.exec(m[1]!)?.[1]);
  assert.deepEqual(sheets, styleUris);
  assert.ok(!/\son\w+=/.test(html), "no inline event handlers");
  return nonce;
}

describe("webview pages, for every panel the build makes", () => {
  it("the panels are found (the nsys panel too)", () => {
    assert.deepEqual([...PANELS].sort(), ["bench", "nsys", "occupancy", "profile"]);
  });

  for (const bundle of PANELS)
    it(`the ${bundle} panel: locked-down page, scripts only from dist/webview, a fresh nonce per load`, () => {
      const a = host(bundle);
      const page = [`${ROOT}/${bundle}.js`, [`${ROOT}/shared.css`, `${ROOT}/${bundle}.css`]] as const;
      const first = checkPage(a.webview.html, page[0], [...page[1]], a.webview.cspSource);
      assert.equal(a.webview.options.enableScripts, true);
      assert.deepEqual(a.webview.options.localResourceRoots, [new FakeUri("/ext/dist/webview")]);
      const b = host(bundle, { open: true });
      const second = checkPage(b.webview.html, page[0], [...page[1]], b.webview.cspSource);
      assert.notEqual(second, first, "a fresh nonce per load");
      const created = createdPanels.at(-1)!;
      assert.equal(created.viewType, `cudaKernelDev.${bundle}`);
      assert.deepEqual(created.createdWith?.localResourceRoots, [new FakeUri("/ext/dist/webview")]);
      assert.ok(readFileSync(join(REPO, "webview", bundle, `${bundle}.css`), "utf8").length > 0);
    });

  it("shows the title only as text", () => {
    const title = `</title><script>alert(1)</script>"'&`;
    const { webview } = host("profile", { title });
    checkPage(
      webview.html,
      `${ROOT}/profile.js`,
      [`${ROOT}/shared.css`, `${ROOT}/profile.css`],
      webview.cspSource,
    );
    const shown = /<title>([^<]*)<\/title>/.exec(webview.html)?.[1];
    assert.equal(shown, "&#60;/title&#62;&#60;script&#62;alert(1)&#60;/script&#62;&#34;&#39;&#38;");
  });

  it("the .vsix ships the bundle folder", () => {
    assert.ok(readFileSync(join(REPO, "webview", "shared", "shared.css"), "utf8").length > 0);
    assert.match(readFileSync(join(REPO, ".vscodeignore"), "utf8"), /^!dist\/webview\/\*\*$/m);
  });
});

const JUNK: unknown[] = [
  null,
  undefined,
  "ready",
  42,
  [],
  { type: "evil" },
  { type: "run", command: "rm -rf /" },
  { type: "failed", message: 5 },
  { type: "rendered", view: "profile", charts: "x" },
  { type: "rendered", view: 5, charts: [] },
  JSON.parse('{"__proto__": {"type": "ready"}}'),
];

describe("messages from the page", () => {
  for (const bundle of PANELS)
    it(`the ${bundle} panel drops what does not match the protocol, and sends its state on ready`, () => {
      const asked: unknown[] = [];
      const { h, log, webview, state } = host(bundle, { onRequest: (m) => (asked.push(m), false) });
      h.show({ type: "state-of", bundle, shown: 1 });
      assert.deepEqual(webview.posted, [], "nothing is sent before the page is ready");
      for (const j of JUNK) webview.fromPage(j);
      assert.deepEqual(webview.posted, []);
      assert.equal(log.lines.filter((l) => l.endsWith("dropped a malformed message")).length, JUNK.length);
      assert.deepEqual(asked, JUNK, "the panel's own guard saw them, and took none");
      webview.fromPage({ type: "ready" });
      assert.deepEqual(webview.posted, [{ ...state, shown: 1 }]);
      webview.fromPage({ type: "rendered", charts: ["a"] });
      webview.fromPage({ type: "failed", message: "boom" });
      assert.deepEqual(log.lines.slice(-2), [
        `info: ${bundle} panel: drew a`,
        `error: ${bundle} panel failed to render: boom`,
      ]);
      h.dispose();
      assert.equal(webview.listening, 0, "the listener goes with the panel");
    });

  it("the shared guard takes only the panel protocol", () => {
    for (const j of JUNK) assert.equal(isPanelMessage(j), false, `accepted ${JSON.stringify(j)}`);
    assert.equal(isPanelMessage({ type: "ready" }), true);
  });

  // Each panel's own guards (what the host sends it, what it asks the host): every exported is*().
  const load = createRequire(__filename);
  for (const bundle of PANELS)
    it(`the ${bundle} panel's own guards drop junk`, () => {
      const protocol = load(join(REPO, "webview", bundle, "protocol.ts")) as Record<string, unknown>;
      const guards = Object.entries(protocol).filter(
        (e): e is [string, (x: unknown) => boolean] => /^is[A-Z]/.test(e[0]) && typeof e[1] === "function",
      );
      assert.ok(guards.length >= 1, `webview/${bundle}/protocol.ts exports a guard`);
      for (const [name, guard] of guards)
        for (const j of JUNK)
          assert.equal(guard(j), false, `${bundle} ${name} accepted ${JSON.stringify(j)}`);
    });
});

describe("webview boundaries", () => {
  it("one host makes every webview: no other extension file creates one, sets its page or reads its messages", () => {
    const touching = src("extension").filter((f) =>
      /createWebviewPanel|webview\.(html|options) =|onDidReceiveMessage|webview\.postMessage/.test(f.text),
    );
    assert.deepEqual(
      touching.map((f) => f.file),
      ["extension/webviewHost.ts"],
    );
  });

  it("the panel code has no HTML sink: data can only become text", () => {
    const SINKS =
      /\.innerHTML|\.outerHTML|insertAdjacentHTML|document\.write|srcdoc|\beval\(|new Function\(|setAttribute\(\s*["'`]on|createContextualFragment|DOMParser/;
    const files = src("webview");
    assert.ok(files.length >= 6);
    for (const f of files) {
      const line = f.text.split("\n").findIndex((l) => SINKS.test(l));
      assert.equal(line, -1, `${f.file}:${line + 1} uses an HTML sink`);
    }
  });

  it("loads nothing from the network", () => {
    for (const f of src("webview"))
      assert.ok(!/\bfetch\(|XMLHttpRequest|WebSocket|https?:\/\/(?!www\.w3\.org)/.test(f.text), f.file);
  });
});
