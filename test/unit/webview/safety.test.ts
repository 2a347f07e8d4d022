// Webview lockdown, checked over every panel: the page builder gives CSP default-src 'none' with a
// fresh nonce, the script only from the bundle and the stylesheet only from the webview's origin;
// one host (webviewHost.ts) makes every panel, limits localResourceRoots to dist/webview and passes
// every message through the shared guard (unknown ones dropped); the panel code has no HTML sink, so
// a kernel name like `<img src=x onerror=alert(1)>` can only ever be text.
// (The panels rendering such names in a browser: test/unit/bench/panelRender.test.ts,
// test/unit/webview/hostileNames.test.ts and test/ui/profile.test.ts.)
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { webviewHtml } from "../../../extension/webviewHostHtml";
import * as benchProtocol from "../../../webview/bench/protocol";
import * as occupancyProtocol from "../../../webview/occupancy/protocol";
import * as profileProtocol from "../../../webview/profile/protocol";
import { isPanelMessage } from "../../../webview/shared/protocol";

const REPO = join(__dirname, "..", "..", "..");
const src = (dir: string): { file: string; text: string }[] =>
  readdirSync(join(REPO, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => ({ file: join(dir, f), text: readFileSync(join(REPO, dir, f), "utf8") }));

/** Checks one page: CSP, nonce on every script, scripts only from `scriptUri`, styles only from `styleUris`. */
export function checkPage(
  html: string,
  nonce: string,
  scriptUri: string,
  styleUris: string[],
  cspSource: string,
): void {
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
  assert.ok(csp, "a CSP meta tag");
  const directives = new Map(
    csp.split(";").map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name!, values] as const;
    }),
  );
  assert.deepEqual(directives.get("default-src"), ["'none'"]);
  assert.deepEqual(directives.get("script-src"), [`'nonce-${nonce}'`]);
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
  assert.ok(scripts.length >= 1);
  for (const s of scripts) {
    assert.match(s, new RegExp(`nonce="${nonce.replace(/[+/=]/g, "\\$&")}"`));
    assert.equal(/src="([^"]+)"/.exec(s)?.[1], scriptUri);
  }
  assert.ok(!/<style\b|\sstyle=/.test(html), "no inline styles");
  const sheets = [...html.matchAll(/<link\b([^>]*)>/g)].map((m) => m[1]!);
  assert.deepEqual(
    sheets.map((l) => /href="([^"]+)"/.exec(l)?.[1]),
    styleUris,
  );
  assert.ok(!/\son\w+=/.test(html), "no inline event handlers");
}

// What VS Code's webview.cspSource is.
const CSP_SOURCE = "https://*.vscode-cdn.net";
const extensionFiles = src("extension");
const hostFile = "extension/webviewHost.ts";

describe("webview pages", () => {
  for (const bundle of ["bench", "occupancy", "profile"])
    it(`the ${bundle} panel page`, () => {
      const nonce = randomBytes(18).toString("base64");
      const base = "https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview";
      const page = {
        scriptUri: `${base}/${bundle}.js`,
        styleUris: [`${base}/shared.css`, `${base}/${bundle}.css`],
      };
      const html = webviewHtml({ title: bundle, cspSource: CSP_SOURCE, nonce, ...page });
      checkPage(html, nonce, page.scriptUri, page.styleUris, CSP_SOURCE);
    });

  it("the host makes a fresh nonce per load from crypto, inside the function that builds the page", () => {
    const host = extensionFiles.find((f) => f.file === hostFile)!;
    // A module-level nonce would be reused across loads.
    assert.ok(!/^const \w*nonce\w* =/im.test(host.text), "nonce at module level");
    assert.match(host.text, /nonce: randomBytes\(\d+\)\.toString\("base64"\)/, "nonce from crypto");
  });

  it("every panel has its stylesheet, and the .vsix ships the bundle folder", () => {
    for (const name of ["shared", "bench", "occupancy", "profile"])
      assert.ok(
        readFileSync(join(REPO, "webview", name, `${name}.css`), "utf8").length > 0,
        `webview/${name}/${name}.css`,
      );
    assert.match(readFileSync(join(REPO, ".vscodeignore"), "utf8"), /^!dist\/webview\/\*\*$/m);
  });
});

describe("webview hosts", () => {
  it("one host makes every webview: no other file creates one, sets its page or reads its messages", () => {
    const touching = extensionFiles.filter((f) =>
      /createWebviewPanel|webview\.(html|options) =|onDidReceiveMessage|webview\.postMessage/.test(f.text),
    );
    assert.deepEqual(
      touching.map((f) => f.file),
      [hostFile],
    );
    for (const panel of ["benchPanel", "occupancyPanel", "profilePanel"])
      assert.match(
        extensionFiles.find((f) => f.file === `extension/${panel}.ts`)!.text,
        /from "\.\/webviewHost"/,
        panel,
      );
  });

  it("it limits local resources to dist/webview and validates every message", () => {
    const host = extensionFiles.find((f) => f.file === hostFile)!.text;
    const roots = [...host.matchAll(/localResourceRoots:\s*\[([^\]]*)\]/g)].map((m) => m[1]!.trim());
    assert.deepEqual(roots, ["root"]);
    assert.match(host, /const root = vscode\.Uri\.joinPath\([\w.]+, "dist", "webview"\)/);
    const receivers = [...host.matchAll(/onDidReceiveMessage\(\((\w+)(: unknown)?\) =>([\s\S]{0,200})/g)];
    assert.equal(receivers.length, 1);
    for (const m of receivers) {
      assert.equal(m[2], ": unknown", "messages typed unknown");
      assert.match(m[3]!, new RegExp(`this\\.receive\\(${m[1]}\\)`));
    }
    assert.match(host, /private receive\(m: unknown\): void \{\s*if \(!isPanelMessage\(m\)\)/, "guard first");
  });

  it("the guards drop unknown and malformed messages", () => {
    const junk: unknown[] = [
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
    for (const j of junk) assert.equal(isPanelMessage(j), false, `accepted ${JSON.stringify(j)}`);
    assert.equal(isPanelMessage({ type: "ready" }), true);
    // And the panels' own guards on what the host sends them.
    const hostGuards: [string, (x: unknown) => boolean][] = [
      ["bench panel", benchProtocol.isHostMessage],
      ["occupancy panel", occupancyProtocol.isShowMessage],
      ["profile panel", profileProtocol.isHostMessage],
    ];
    for (const [name, guard] of hostGuards)
      for (const j of junk) assert.equal(guard(j), false, `${name} accepted ${JSON.stringify(j)}`);
  });
});

describe("webview code", () => {
  it("has no HTML sink: data can only become text", () => {
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
