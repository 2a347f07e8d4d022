// The extension's launch policy is installed once, by the bundle loader (extension/lazy.ts), and holds
// in every bundle: a stand-in bundle with its own copy of the launcher (as each of dist/*.js has) runs
// nothing before the loader, nothing in Restricted Mode, tools once the workspace is trusted, and
// nothing again after deactivation. vscode is test/support/fakeVscode.ts.
import { fakeLog, fakeWorkspace } from "../../support/fakeVscode";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, it } from "node:test";
import { build } from "esbuild";
import type * as vscode from "vscode";
import { loadBundle } from "../../../extension/lazy";
import { tempDir } from "../../support/tempDir";

const REPO = join(__dirname, "..", "..", "..");

/** What the stand-in bundle exports: it tries to start `true` through its own launcher. */
interface Probe {
  tryLaunch: (this: void) => string;
}

/** Builds the stand-in as dist/nvcc.js of a fake extension folder; returns that folder. */
async function extensionWithProbe(): Promise<string> {
  const ext = tempDir("ckd-ext-");
  const entry = join(ext, "probe.ts");
  writeFileSync(
    entry,
    `import { spawnChecked } from ${JSON.stringify(join(REPO, "server", "process", "launch"))};
export function tryLaunch(): string {
  try {
    spawnChecked("true", [], { tool: "probe" });
    return "started";
  } catch (e) {
    return (e as Error).message;
  }
}
`,
  );
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "cjs",
    outfile: join(ext, "dist", "nvcc.js"),
    external: ["execa", "signal-exit"],
    logLevel: "silent",
  });
  return ext;
}

describe("the extension's launch policy", () => {
  it("is installed by the bundle loader, once, for every bundle's launcher", async () => {
    const ext = await extensionWithProbe();
    const probe = createRequire(__filename)(join(ext, "dist", "nvcc.js")) as Probe;
    assert.match(probe.tryLaunch(), /^probe was not run: no launch policy is installed/, "before the loader");

    const subscriptions: { dispose(): unknown }[] = [];
    const ctx = { extensionPath: ext, subscriptions } as unknown as vscode.ExtensionContext;
    const host = { ctx, log: fakeLog() as unknown as vscode.LogOutputChannel };
    fakeWorkspace.isTrusted = false;
    const loaded = loadBundle(host, "nvcc") as unknown;
    assert.equal(loaded, probe, "the same bundle, loaded by the loader");
    assert.match(probe.tryLaunch(), /^probe was not run: this workspace is in Restricted Mode/);
    fakeWorkspace.isTrusted = true;
    assert.equal(probe.tryLaunch(), "started", "trust granted: no reload needed");
    loadBundle(host, "nvcc");
    assert.equal(subscriptions.length, 1, "installed once");

    for (const s of subscriptions) s.dispose(); // deactivation
    assert.match(
      probe.tryLaunch(),
      /^probe was not run: no launch policy is installed/,
      "after deactivation",
    );
  });
});
