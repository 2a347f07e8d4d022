// Webview lockdown, checked over every panel: the page builders give CSP default-src 'none' with a
// fresh nonce and scripts only from the bundle; the hosts limit localResourceRoots to dist/webview
// and pass every message through their protocol's guard (unknown ones dropped); the panel code has
// no HTML sink, so a kernel name like `<img src=x onerror=alert(1)>` can only ever be text.
// (The panels rendering such names in a browser: test/unit/bench/panelRender.test.ts,
// test/unit/webview/hostileNames.test.ts and test/ui/profile.test.ts.)
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { panelHtml as benchHtml } from "../../../extension/benchPanelHtml";
import { occupancyHtml } from "../../../extension/occupancyPanelHtml";
import { profilePageHtml } from "../../../extension/profilePanelHtml";
import * as benchProtocol from "../../../webview/bench/protocol";
import * as occupancyProtocol from "../../../webview/occupancy/protocol";
import * as profileProtocol from "../../../webview/profile/protocol";

const REPO = join(__dirname, "..", "..", "..");
const src = (dir: string): { file: string; text: string }[] =>
  readdirSync(join(REPO, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => ({ file: join(dir, f), text: readFileSync(join(REPO, dir, f), "utf8") }));

/** Checks one page: CSP, nonce on every script and style, scripts only from `scriptUri`. */
export function checkPage(html: string, nonce: string, scriptUri: string, cspSource: string): void {
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
  for (const s of html.matchAll(/<style\b([^>]*)>/g)) assert.match(s[1]!, /nonce="/);
  assert.ok(!/\son\w+=/.test(html), "no inline event handlers");
}

// What VS Code's webview.cspSource is.
const CSP_SOURCE = "https://*.vscode-cdn.net";

describe("webview pages", () => {
  const uri = "https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview/bench.js";
  const pages: [string, (cspSource: string, scriptUri: string, nonce: string) => string][] = [
    ["benchmark", benchHtml],
    ["occupancy", occupancyHtml],
    ["profile", profilePageHtml],
  ];
  for (const [name, build] of pages)
    it(`the ${name} panel page`, () => {
      const nonce = randomBytes(18).toString("base64");
      checkPage(build(CSP_SOURCE, uri, nonce), nonce, uri, CSP_SOURCE);
    });

  it("every host makes a fresh nonce per load from crypto, inside the function that builds the page", () => {
    const hosts = src("extension").filter((f) => /createWebviewPanel|webview\.options =/.test(f.text));
    assert.ok(hosts.length >= 3, hosts.map((h) => h.file).join());
    for (const h of hosts) {
      // A module-level nonce would be reused across loads.
      assert.ok(!/^const \w*nonce\w* =/im.test(h.text), `${h.file}: nonce at module level`);
      assert.match(h.text, /randomBytes\(\d+\)\.toString\("base64"\)/, `${h.file}: nonce from crypto`);
    }
  });
});

describe("webview hosts", () => {
  const hosts = src("extension").filter((f) => /createWebviewPanel|webview\.options =/.test(f.text));

  it("limit local resources to dist/webview and validate every message", () => {
    assert.ok(hosts.length >= 3, hosts.map((h) => h.file).join());
    for (const h of hosts) {
      for (const m of h.text.matchAll(/localResourceRoots:\s*\[([^\]]*)\]/g))
        assert.match(
          m[1]!,
          /^\s*(root|vscode\.Uri\.joinPath\([\w.]+, "dist", "webview"\))\s*$/,
          `${h.file}: ${m[1]}`,
        );
      if (/localResourceRoots: \[root\]/.test(h.text))
        assert.match(h.text, /const root = vscode\.Uri\.joinPath\([\w.]+, "dist", "webview"\)/, h.file);
      for (const m of h.text.matchAll(/onDidReceiveMessage\(\((\w+)(: unknown)?\) =>([\s\S]{0,200})/g)) {
        assert.equal(m[2], ": unknown", `${h.file}: messages typed unknown`);
        assert.match(
          m[3]!,
          new RegExp(`is\\w+\\(${m[1]}\\)|this\\.receive\\(${m[1]}\\)`),
          `${h.file}: guard first`,
        );
      }
    }
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
      JSON.parse('{"__proto__": {"type": "ready"}}'),
    ];
    const guards: [string, (x: unknown) => boolean][] = [
      ["bench panel", benchProtocol.isPanelMessage],
      ["occupancy panel", occupancyProtocol.isFromPanel],
      ["profile panel", profileProtocol.isPanelMessage],
    ];
    for (const [name, guard] of guards) {
      for (const j of junk) assert.equal(guard(j), false, `${name} accepted ${JSON.stringify(j)}`);
      assert.equal(guard({ type: "ready" }), true, name);
    }
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
