// `npm run bench:lint`: how fast the lints are and how much memory the server holds.
// Prints: warm full lint of a 5,000-line .cu (goal <= 10 ms), CPU per rule and per shared reader, the
// lint after edits that change a whole-file fact (an opt-in attribute, a constant, a file-scope __half),
// one-character edit to new diagnostics p50/p95 (goal p95 <= 10 ms; in the engine, and end to end over
// LSP stdio with no debounce), throughput in MB/s, and the server's resident memory after linting a
// 1,000-file workspace (goal <= 200 MB) and after closing them all (trees freed). The engine's figures
// are in lintEngine.ts, timed from a bundle built as the server's is (BENCH_FROM_SOURCE=1: through tsx).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { errorMessage } from "../../server/util/errorMessage";
import { REPO, startLsp } from "../integration/lspClient";
import { pointAt } from "../unit/lint/textEdits";
import { engineFigures, ms, pct } from "./lintEngine";
import { KERNEL_NAME, workload } from "./lintWorkload";

/** The server to measure: the bundle when built (what the extension runs), else the CLI from source. */
function serverArgs(): { args: string[] | undefined; what: string } {
  const bundle = join(REPO, "dist", "server.js");
  return existsSync(bundle)
    ? { args: [bundle, "--stdio"], what: "dist/server.js" }
    : { args: undefined, what: "server/cli/main.ts via tsx (run `npm run build` to measure the bundle)" };
}

async function lspEditFigures(text: string): Promise<void> {
  const { args, what } = serverArgs();
  const lsp = await startLsp({
    args,
    initializationOptions: { lintDebounceMs: 0 },
    settings: { targets: ["sm_75", "sm_90"] },
  });
  try {
    const uri = pathToFileURL(join(tmpdir(), "bench-5000.cu")).href;
    await lsp.conn.sendNotification("textDocument/didOpen", {
      textDocument: { uri, languageId: "cuda-cpp", version: 1, text },
    });
    await lsp.waitFor("first diagnostics", () => lsp.diagnostics.get(uri));
    const times: number[] = [];
    let version = 1;
    let current = text;
    const bodies = [...text.matchAll(/\{\n/g)].map((m) => m.index + 2);
    for (let i = 0; i < 200; i++) {
      // A space typed, then deleted again at the same place: the file stays the workload.
      const at = bodies[(Math.floor(i / 2) * 7919) % bodies.length]!;
      const pos = pointAt(current, at);
      const insert = i % 2 === 0;
      const range = {
        start: { line: pos.row, character: pos.column },
        end: { line: pos.row, character: pos.column + (insert ? 0 : 1) },
      };
      current = insert
        ? current.slice(0, at) + " " + current.slice(at)
        : current.slice(0, at) + current.slice(at + 1);
      version++;
      const want = version;
      const published = lsp.published(uri, want);
      const t = performance.now();
      await lsp.conn.sendNotification("textDocument/didChange", {
        textDocument: { uri, version },
        contentChanges: [{ range, text: insert ? " " : "" }],
      });
      await published;
      times.push(performance.now() - t);
    }
    console.log(
      `one-character edit -> publishDiagnostics over LSP stdio (${what}, debounce 0): p50 ${ms(pct(times, 50))}, p95 ${ms(pct(times, 95))}`,
    );
  } finally {
    await lsp.close();
  }
}

function rssMB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string): number => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

async function memoryFigures(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "bench-ws-"));
  const dir = join(REPO, "examples");
  const sources = readdirSync(dir)
    .filter((f) => /\.cuh?$/.test(f))
    .map((f) => readFileSync(join(dir, f), "utf8"));
  const files: string[] = [];
  for (let i = 0; i < 1000; i++) {
    const sub = join(root, `pkg${i % 20}`);
    mkdirSync(sub, { recursive: true });
    const file = join(sub, `kernel_${i}.cu`);
    writeFileSync(file, sources[i % sources.length]!.replace(KERNEL_NAME, `$1$2_${i}`));
    files.push(file);
  }
  writeFileSync(join(root, "build.toml"), '[kernel.all]\ncuda-capabilities = ["7.5", "8.0", "9.0"]\n');
  const { args, what } = serverArgs();
  const lsp = await startLsp({
    args,
    rootUri: pathToFileURL(root).href,
    initializationOptions: { lintDebounceMs: 0 },
  });
  try {
    const before = rssMB(lsp.proc.pid!);
    const t = performance.now();
    for (const file of files) {
      const uri = pathToFileURL(file).href;
      await lsp.conn.sendNotification("textDocument/didOpen", {
        textDocument: { uri, languageId: "cuda-cpp", version: 1, text: readFileSync(file, "utf8") },
      });
    }
    await lsp.waitFor(
      "all diagnostics",
      () => (lsp.diagnostics.size >= files.length ? true : undefined),
      300_000,
    );
    const elapsed = performance.now() - t;
    const open = rssMB(lsp.proc.pid!);
    const findings = [...lsp.diagnostics.values()].reduce((n, p) => n + p.diagnostics.length, 0);
    for (const file of files)
      await lsp.conn.sendNotification("textDocument/didClose", {
        textDocument: { uri: pathToFileURL(file).href },
      });
    // The close notifications are handled in order; a request after them returns once they are done.
    await lsp.conn.sendRequest("textDocument/documentSymbol", {
      textDocument: { uri: pathToFileURL(files[0]!).href },
    });
    const closed = rssMB(lsp.proc.pid!);
    console.log(`server (${what}): RSS at start ${before.rss.toFixed(0)} MB`);
    console.log(
      `1,000-file workspace linted in ${(elapsed / 1000).toFixed(1)} s: RSS with all open ${open.rss.toFixed(0)} MB (peak ${open.peak.toFixed(0)} MB)   goal <= 200 MB`,
    );
    console.log(
      `after closing all 1,000 (trees freed): RSS ${closed.rss.toFixed(0)} MB; findings published before closing: ${findings}`,
    );
  } finally {
    await lsp.close();
  }
}

/**
 * The engine's figures as the extension runs the engine: bundled by esbuild with build.mjs's options for
 * the server (minified CommonJS for node20), in a child process. From source, tsx makes every call of an
 * imported function a getter call, which costs a tight reader loop up to 14%.
 */
async function bundledEngineFigures(text: string): Promise<void> {
  const out = join(REPO, "dist", "bench");
  mkdirSync(out, { recursive: true });
  const bundle = join(out, "lintEngine.js");
  await build({
    entryPoints: [join(REPO, "test", "bench", "lintEngineMain.ts")],
    outfile: bundle,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    minify: true,
    logLevel: "warning",
    // As build.mjs: ESM-only dependencies read import.meta.url.
    define: { "import.meta.url": "__importMetaUrl" },
    banner: { js: 'const __importMetaUrl = require("url").pathToFileURL(__filename).href;' },
  });
  const input = join(out, "workload.cu");
  writeFileSync(input, text);
  const run = spawnSync(process.execPath, [bundle, input], { stdio: "inherit" });
  if (run.status !== 0) throw new Error(`the engine's bundle (${bundle}) exited with ${run.status}`);
}

async function main(): Promise<void> {
  console.log(
    `machine: ${cpus().length} cores, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}`,
  );
  const text = workload(5000);
  const fromSource = process.env.BENCH_FROM_SOURCE === "1";
  console.log(
    `engine: ${fromSource ? "from source, through tsx" : "bundled as the server is (esbuild, minified)"}`,
  );
  await (fromSource ? engineFigures(text) : bundledEngineFigures(text));
  await lspEditFigures(text);
  await memoryFigures();
}

main().catch((err: unknown) => {
  console.error(errorMessage(err));
  process.exitCode = 1;
});
