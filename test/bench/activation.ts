// `npm run bench:activation`: the extension's activation time as VS Code itself measures it
// (Developer: Show Running Extensions: loading the entry's code plus the activate() call; goal
// <= 100 ms), its two parts from Developer: Startup Performance, what the extension's log says, the
// size of the entry bundle and of the bundles it loads on first use, and, to tell the extension's
// share from a loaded machine's, the entry's require + activate in a bare node (wall and CPU time).
//   --baseline <dist/extension.js of another build>: the same bare-node figures and size for it.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Page } from "playwright-core";
import { openFile, runCommand, screenshot } from "../support/browser";
import { repoRoot } from "../support/codeServer";
import { extensionLog, waitForLog } from "../support/extensionLog";
import { startUiSession, statusItem } from "../support/uiSession";

const EXTENSION_ID = "cuda-kernel-dev.cuda-kernel-dev";
const GOAL_MS = 100;
/** dist/*.js that the extension does not load: the language server's process, the CLI, the GPU runner. */
const NOT_LOADED_BY_THE_EXTENSION = new Set(["server.js", "cli.js", "runner.js"]);

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

/** The figure in Developer: Show Running Extensions, e.g. "Activation: 42ms". */
async function runningExtensionsFigure(page: Page): Promise<string> {
  await runCommand(page, "Developer: Show Running Extensions");
  const row = page
    .locator(".runtime-extensions-editor .monaco-list-row", { hasText: "CUDA Kernel Dev" })
    .first();
  await row.waitFor({ timeout: 15_000 });
  const text = await row.locator(".activation-time").first().textContent();
  await screenshot(page, "bench-activation");
  return text?.trim() ?? "?";
}

/** The text of Developer: Startup Performance (a read-only editor), copied out through the clipboard. */
async function startupPerformance(page: Page): Promise<string> {
  await runCommand(page, "Developer: Startup Performance");
  await page
    .locator('.tabs-container .tab[aria-label*="Startup Performance"]')
    .first()
    .waitFor({ timeout: 15_000 });
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  const editor = page.locator(".monaco-editor .view-lines").first();
  // The document is filled in as the figures arrive: copy until the extension's row is in it.
  for (let attempt = 0; attempt < 20; attempt++) {
    await editor.click();
    await page.keyboard.press("Control+A");
    await page.keyboard.press("Control+C");
    const text = await page.evaluate(() => navigator.clipboard.readText());
    if (text.includes(`| ${EXTENSION_ID}`)) return text;
    await page.waitForTimeout(500);
  }
  return "";
}

interface ActivationStats {
  loadCode: number;
  callActivate: number;
  finishActivate: number;
}

/** The extension's row of "Extension Activation Stats": | id | eager | load code | call activate | finish | … */
function activationStats(doc: string): ActivationStats | undefined {
  const row = doc.split("\n").find((l) => l.startsWith(`| ${EXTENSION_ID} `));
  const cells = row?.split("|").map((c) => c.trim());
  if (!cells || cells.length < 6) return undefined;
  return { loadCode: Number(cells[3]), callActivate: Number(cells[4]), finishActivate: Number(cells[5]) };
}

/** The extension host's marks around the require of the entry alone (not always listed), in ms. */
function requireSpan(doc: string): number | undefined {
  const at = (mark: string): number | undefined => {
    const line = doc.split("\n").find((l) => l.startsWith(`code/extHost/${mark}/${EXTENSION_ID}\t`));
    return line ? Number(line.split("\t")[1]) : undefined;
  };
  const will = at("willLoadExtensionCode");
  const did = at("didLoadExtensionCode");
  return will !== undefined && did !== undefined ? did - will : undefined;
}

/** The entry, then the bundles the extension loads on first use, with their sizes. */
function bundleSizes(): string[] {
  const dist = join(repoRoot, "dist");
  const lazy = readdirSync(dist)
    .filter((f) => f.endsWith(".js") && f !== "extension.js" && !NOT_LOADED_BY_THE_EXTENSION.has(f))
    .map((f) => `dist/${f} ${kib(statSync(join(dist, f)).size)}`);
  return [
    `entry (required at activation): dist/extension.js ${kib(statSync(join(dist, "extension.js")).size)}`,
    `loaded on first use: ${lazy.join(", ") || "none"}`,
  ];
}

/**
 * Run in a fresh node per sample: requires a bundle and calls its activate() with a stand-in for the
 * `vscode` module that answers every use with another stand-in, timing both (wall and CPU). Its
 * top-level names (which the bundle's import helper copies) are those @types/vscode declares.
 */
const STANDALONE = String.raw`
const Module = require("node:module");
const [bundle, namesFile] = process.argv.slice(2);
const any = () => new Proxy(function () {}, {
  get: (_t, key) => (key === "then" ? undefined : key === Symbol.toPrimitive ? () => "" : any()),
  apply: () => any(),
  construct: () => any(),
});
const vscode = Object.fromEntries(JSON.parse(require("node:fs").readFileSync(namesFile, "utf8")).map((n) => [n, any()]));
const load = Module._load;
Module._load = function (request, ...rest) {
  return request === "vscode" ? vscode : load.call(this, request, ...rest);
};
const time = (fn) => {
  const cpu = process.cpuUsage();
  const wall = performance.now();
  fn();
  const used = process.cpuUsage(cpu);
  return { wall: performance.now() - wall, cpu: (used.user + used.system) / 1000 };
};
let mod;
const req = time(() => (mod = require(bundle)));
const ctx = { subscriptions: [], extensionPath: "/nonexistent", extensionUri: any(), globalStorageUri: any(),
  workspaceState: any(), asAbsolutePath: (p) => p };
const act = time(() => { try { mod.activate(ctx); } catch {} });
process.stdout.write(JSON.stringify({ req, act }));
process.exit(0);
`;

interface Timing {
  wall: number;
  cpu: number;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The bare-node require + activate of `bundle`: the median of `samples` fresh processes. */
function standalone(bundle: string, samples = 5): string {
  const dir = mkdtempSync(join(tmpdir(), "ckd-activation-"));
  const script = join(dir, "standalone.js");
  const names = join(dir, "vscode-names.json");
  writeFileSync(script, STANDALONE);
  const types = readFileSync(join(repoRoot, "node_modules/@types/vscode/index.d.ts"), "utf8");
  const declared = [...types.matchAll(/^\texport (?:namespace|class|enum|const|function|let) (\w+)/gm)];
  writeFileSync(names, JSON.stringify([...new Set(declared.map((m) => m[1]))]));
  type Run = { req: Timing; act: Timing };
  const runs: Run[] = [];
  for (let i = 0; i < samples; i++)
    runs.push(
      JSON.parse(execFileSync(process.execPath, [script, bundle, names], { encoding: "utf8" })) as Run,
    );
  const fmt = (pick: (r: Run) => Timing): string =>
    `${median(runs.map((r) => pick(r).wall)).toFixed(1)} ms wall / ${median(runs.map((r) => pick(r).cpu)).toFixed(1)} ms CPU`;
  return `require ${fmt((r) => r.req)}, activate ${fmt((r) => r.act)} (${kib(statSync(bundle).size)}, median of ${samples})`;
}

/** VS Code's figures and the extension's own, from one code-server session. */
async function inVsCode(): Promise<string[]> {
  const ui = await startUiSession();
  try {
    await openFile(ui.page, "rmsnorm.cu");
    await statusItem(ui.page).waitFor({ state: "visible", timeout: 10_000 });
    const figure = await runningExtensionsFigure(ui.page);
    const doc = await startupPerformance(ui.page);
    const stats = activationStats(doc);
    const span = requireSpan(doc);
    await waitForLog(ui, /activated in/).catch(() => undefined);
    const ours = extensionLog(ui)
      .split("\n")
      .filter((l) => /activated in|loaded dist\//.test(l))
      .map((l) => l.replace(/^\S+ \S+ \[\w+\] /, ""));
    const ms = Number(/(\d+)\s*ms/.exec(figure)?.[1]);
    return [
      `activation (VS Code's own figure): ${figure}${Number.isFinite(ms) ? ` (goal <= ${GOAL_MS} ms: ${ms <= GOAL_MS ? "met" : "missed"})` : ""}`,
      stats
        ? `  VS Code's parts: load code ${stats.loadCode} ms + call activate ${stats.callActivate} ms (activate's promise settled ${stats.finishActivate} ms later)`
        : "  VS Code's parts: (not found in Developer: Startup Performance)",
      ...(span !== undefined ? [`  of the load, the require of dist/extension.js itself: ${span} ms`] : []),
      `  the extension's log: ${ours.join("; ") || "(nothing yet)"}`,
    ];
  } finally {
    await ui.close();
  }
}

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const baseline = option("--baseline");
  const before = loadavg()[0]!;
  const lines = await inVsCode();
  lines.push(...bundleSizes());
  lines.push(`bare node, dist/extension.js: ${standalone(join(repoRoot, "dist/extension.js"))}`);
  if (baseline) lines.push(`bare node, baseline ${baseline}: ${standalone(resolve(baseline))}`);
  lines.push(
    `machine: ${cpus().length} cores, load average (1 min) ${before.toFixed(2)} before, ${loadavg()[0]!.toFixed(2)} after`,
  );
  console.log(lines.join("\n"));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
