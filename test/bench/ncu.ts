// `npm run bench:ncu`: the ncu CSV parser on real exports. Before: csv-parse alone on the same bytes,
// the floor of the old parser (csv-parse behind a line filter, then the same row handling). After:
// the one-pass parser, holding every launch (the panel) or streaming the summary (the CLI); the
// summary reopened from the cache beside the report; a 56 MB export made of the real PyTorch
// launches (test/fixtures/profile/README.md) repeated seven times with new IDs, each figure in a
// fresh process for its peak RSS; and `node dist/cli.js ncu summarize` as a whole process when
// dist/ is built. Prints figures; asserts nothing.
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, createReadStream, existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { appendFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { parse } from "csv-parse";
import fs, { type PathLike, type ReadStream } from "node:fs";
import { loadProfile, loadSummary, type LoadedProfile } from "../../server/profile/loadProfile";
import { parseNcuCsv } from "../../server/profile/ncuCsv";
import { summarizeNcuCsv } from "../../server/profile/ncuSummary";

const ROOT = join(__dirname, "../..");
const FIX = join(ROOT, "test/fixtures/profile");
const RUNS = 7;
const COPIES = 7;
/** The smallest of these V8 old-space limits (--max-old-space-size) an operation completes under. */
const HEAP_LIMITS_MB = [8, 16, 32, 64, 128];

async function csvParseOnly(path: string): Promise<void> {
  const p = createReadStream(path).pipe(parse({ relax_column_count: true, info: true }));
  for await (const _ of p) {
    // consume
  }
}

const OPS: Record<string, (path: string) => Promise<unknown>> = {
  "csv-parse alone": csvParseOnly,
  parse: (path) => parseNcuCsv({ path }),
  "streamed summary": (path) => summarizeNcuCsv({ path }),
  nothing: () => Promise.resolve(),
};

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const cpuMs = (since: NodeJS.CpuUsage): number => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1e3;
};

/** Wall-clock median and spread, and the median CPU time: on a shared machine the steadier of the two. */
function line(label: string, ms: number[], cpu?: number[], bytes?: number): void {
  const m = median(ms);
  const rate = bytes === undefined ? "" : `, ${(bytes / 1e6 / (m / 1e3)).toFixed(0)} MB/s`;
  const spread = `min ${Math.min(...ms).toFixed(1)} max ${Math.max(...ms).toFixed(1)}`;
  const onCpu = cpu ? `; CPU ${median(cpu).toFixed(1)} ms` : "";
  console.log(`  ${label.padEnd(46)} ${m.toFixed(1).padStart(7)} ms (${spread}${rate})${onCpu}`);
}

async function time(label: string, bytes: number | undefined, fn: () => Promise<unknown>): Promise<void> {
  await fn(); // warm-up: module loading and JIT
  const ms: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
    cpu.push(cpuMs(c0));
  }
  line(label, ms, cpu, bytes);
}

interface ChildFigures {
  ms: number;
  cpuMs: number;
  peakRssMB: number;
  /** The JS heap still in use after a full GC, the result included: what the operation keeps. */
  heldMB: number;
}

/**
 * One operation in a fresh process: its time (cold, as the CLI runs it), the process's peak RSS, and
 * what it holds at the end; with `heapMB`, under that V8 old-space limit (undefined: it ran out).
 */
function inChild(op: string, path: string, heapMB?: number): ChildFigures | undefined {
  const limit = heapMB === undefined ? [] : [`--max-old-space-size=${heapMB}`];
  const args = [...limit, "--expose-gc", "--import", "tsx", __filename, "--child", op, path];
  const r = spawnSync(process.execPath, args, { encoding: "utf8", cwd: ROOT });
  if (r.status !== 0 && heapMB !== undefined) return undefined;
  if (r.status !== 0) throw new Error(`child ${op}: ${r.stderr}`);
  return JSON.parse(r.stdout) as ChildFigures;
}

async function child(op: string, path: string): Promise<void> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await OPS[op]!(path);
  const ms = performance.now() - t0;
  const cpu = cpuMs(c0);
  (globalThis as { gc?: () => void }).gc?.();
  const heldMB = process.memoryUsage().heapUsed / 2 ** 20;
  const figures: ChildFigures = { ms, cpuMs: cpu, peakRssMB: process.resourceUsage().maxRSS / 1024, heldMB };
  // `result` is used after the GC, so what it holds was counted.
  process.stdout.write(JSON.stringify({ ...figures, result: typeof result }));
}

/** The real PyTorch export repeated COPIES times, each copy's launch IDs moved past the last. */
function bigExport(dir: string): { path: string; launches: number } {
  const text = brotliDecompressSync(
    readFileSync(join(FIX, "h100-torch-block-detailed.details.csv.br")),
  ).toString();
  const [header, ...rows] = text.split("\n").filter((l) => l !== "");
  const ids = new Set(rows.map((r) => r.slice(1, r.indexOf('"', 1))));
  const path = join(dir, "torch-x7.details.csv");
  writeFileSync(path, `${header}\n`);
  for (let k = 0; k < COPIES; k++) {
    const moved = rows.map((r) => {
      const end = r.indexOf('"', 1);
      return `"${Number(r.slice(1, end)) + k * ids.size}${r.slice(end)}`;
    });
    appendFileSync(path, `${moved.join("\n")}\n`);
  }
  return { path, launches: ids.size * COPIES };
}

/** Bytes of `file` that streams opened while `fn` ran read (the CSV readers open files with createReadStream). */
async function bytesRead(file: string, fn: () => Promise<unknown>): Promise<number> {
  const original = fs.createReadStream;
  const streams: ReadStream[] = [];
  fs.createReadStream = (path: PathLike, options?: Parameters<typeof original>[1]) => {
    const stream = original(path, options);
    if (path === file) streams.push(stream);
    return stream;
  };
  try {
    await fn();
  } finally {
    fs.createReadStream = original;
  }
  return streams.reduce((n, s) => n + s.bytesRead, 0);
}

/** Opening a report for the panel reads its source page (hot lines) only when the panel asks for them. */
async function sourcePageFigures(dir: string, details: string, raw: string): Promise<void> {
  const stem = join(dir, "h200-with-source");
  copyFileSync(details, `${stem}.details.csv`);
  copyFileSync(raw, `${stem}.raw.csv`);
  const source = `${stem}.source.csv`;
  copyFileSync(join(FIX, "h100/rms-vec-basic.source.csv"), source);
  const eager = (): Promise<unknown> => loadProfile(`${stem}.details.csv`, "ncu");
  const lazy = (): Promise<LoadedProfile> =>
    loadProfile(`${stem}.details.csv`, "ncu", undefined, undefined, { source: "lazy" });
  console.log(
    `Opening a report for the panel: H200 details + raw pages, a real source page (${(statSync(source).size / 1024).toFixed(1)} KiB, H100 rms-vec-basic):`,
  );
  await time("eager: with the source page (before)", undefined, eager);
  await time("lazy: without it (the panels now)", undefined, lazy);
  const asked = async (): Promise<unknown> => (await lazy()).loadSource();
  console.log(
    `  source page bytes read: eager ${await bytesRead(source, eager)}, lazy ${await bytesRead(source, lazy)}, lazy then "Mark hot lines" ${await bytesRead(source, asked)} (a .ncu-rep also skips its \`ncu --page source\` export)`,
  );
}

function wholeProcess(label: string, args: string[]): void {
  const ms: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    execFileSync(process.execPath, [join(ROOT, "dist/cli.js"), ...args], { stdio: "ignore" });
    ms.push(performance.now() - t0);
  }
  line(label, ms);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bench-ncu-"));
  try {
    await figures(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function figures(dir: string): Promise<void> {
  const details = join(dir, "h200-rmsnorm-full.details.csv");
  copyFileSync(join(FIX, "h200-rmsnorm-full.details.csv"), details);
  const raw = join(FIX, "h200-rmsnorm-full.raw.csv");
  const torch = join(dir, "torch.details.csv");
  writeFileSync(
    torch,
    brotliDecompressSync(readFileSync(join(FIX, "h100-torch-block-detailed.details.csv.br"))),
  );
  const size = (p: string): number => statSync(p).size;

  console.log(`H200 details export, ${mb(size(details))} (110 launches, --set full):`);
  await time("before: csv-parse alone (the old parser's floor)", size(details), () => csvParseOnly(details));
  await time("after: parse, every launch held", size(details), () => parseNcuCsv({ path: details }));
  await time("after: streamed summary", size(details), () => summarizeNcuCsv({ path: details }));
  await loadSummary(details, "ncu"); // writes the cache
  await time("after: summary reopened from the cache", undefined, () => loadSummary(details, "ncu"));

  console.log(`H200 raw export, ${mb(size(raw))} (110 launches x 2,227 columns):`);
  await time("before: csv-parse alone", size(raw), () => csvParseOnly(raw));
  await time("after: parse", size(raw), () => parseNcuCsv({ path: raw }));

  console.log(`PyTorch block details export, ${mb(size(torch))} (268 launches, --set detailed, H100):`);
  await time("before: csv-parse alone", size(torch), () => csvParseOnly(torch));
  await time("after: parse", size(torch), () => parseNcuCsv({ path: torch }));

  await sourcePageFigures(dir, details, raw);

  const big = bigExport(dir);
  console.log(
    `Generated: the PyTorch launches x${COPIES}, ${mb(size(big.path))} (${big.launches} launches); fresh process each:`,
  );
  for (const op of ["nothing", "csv-parse alone", "parse", "streamed summary"]) {
    const r = inChild(op, big.path)!;
    const what =
      op === "nothing"
        ? "(node + tsx, no parse)"
        : op === "csv-parse alone"
          ? "before: csv-parse alone"
          : `after: ${op}`;
    const fits = HEAP_LIMITS_MB.find((limit) => inChild(op, big.path, limit));
    console.log(
      `  ${what.padEnd(46)} ${r.ms.toFixed(0).padStart(7)} ms (CPU ${r.cpuMs.toFixed(0)} ms), peak RSS ${r.peakRssMB.toFixed(0)} MB, holds ${r.heldMB.toFixed(1)} MB of heap, runs in ${fits ?? "?"} MB of old space`,
    );
  }
  await loadSummary(big.path, "ncu");
  await time("after: summary reopened from the cache", undefined, () => loadSummary(big.path, "ncu"));

  if (!existsSync(join(ROOT, "dist/cli.js"))) {
    console.log("dist/cli.js not built: `npm run build` for the whole-process figures");
    return;
  }
  console.log("`node dist/cli.js ncu summarize FILE` as a whole process (5 runs):");
  wholeProcess("--help (node start and the CLI bundle alone)", ["--help"]);
  wholeProcess(`H200 details ${mb(size(details))}, --no-cache`, ["ncu", "summarize", details, "--no-cache"]);
  wholeProcess(`H200 details ${mb(size(details))}, cached`, ["ncu", "summarize", details]);
  wholeProcess(`generated ${mb(size(big.path))}, --no-cache`, ["ncu", "summarize", big.path, "--no-cache"]);
  wholeProcess(`generated ${mb(size(big.path))}, cached`, ["ncu", "summarize", big.path]);
}

const run = process.argv[2] === "--child" ? child(process.argv[3]!, process.argv[4]!) : main();
run.catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
