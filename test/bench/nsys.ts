// `npm run bench:nsys`: how long `nsys summarize` takes on a report of >= 100,000 kernel launches,
// and the memory it holds. The real 101,007-launch H100 export (test/gpu/nsys/capture.sh, 16 MB) is
// too large for git, so this builds one of the same shape on the real schema: 1,000 NVTX "step"
// ranges of 101 launches each (test/unit/profile/nsysSynth.ts): read in this process, and as the CLI
// and the panel read it, in the reader process (time, the reader's peak RSS). Then the hostile
// exports (nsysHostile.ts). Prints figures; asserts nothing.
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NsysTimelineData } from "../../extension/nsysPanelWindow";
import type { IsolatedStats } from "../../server/process/isolated";
import { loadNsysReport, loadNsysSummary } from "../../server/profile/nsysReportLoad";
import type { NsysTimelineTrace } from "../../server/profile/nsysReport";
import { readSqlite, summarizeSqlite } from "../../server/profile/nsysReportSummary";
import { timelineLanes, visibleBoxes } from "../../server/profile/nsysTimeline";
import { addSteps, SynthExport } from "../unit/profile/nsysSynth";
import { hostileFigures } from "./nsysHostile";

const RUNS = Number(process.env.RUNS ?? 5);
/** READER_ONLY=1: only the reader process's reads (the in-process ones and the hostile exports are slow at millions of launches). */
const READER_ONLY = process.env.READER_ONLY === "1";
const STEPS = Number(process.env.STEPS ?? 1000);
const LAUNCHES = Number(process.env.LAUNCHES ?? 101);

async function main(): Promise<void> {
  let t0 = performance.now();
  const x = await SynthExport.create();
  addSteps(x, STEPS, LAUNCHES);
  const dir = mkdtempSync(join(tmpdir(), "ckd-nsys-bench-"));
  const file = join(dir, "launches.sqlite");
  writeFileSync(file, x.bytes());
  x.db.close();
  console.log(
    `built ${file}: ${STEPS * LAUNCHES} launches in ${STEPS} ranges, ${(statSync(file).size / 1e6).toFixed(1)} MB, ${(performance.now() - t0).toFixed(0)} ms`,
  );
  if (READER_ONLY) {
    await inReader(file);
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  const ms: number[] = [];
  let rss = 0;
  for (let i = 0; i <= RUNS; i++) {
    t0 = performance.now();
    const s = await summarizeSqlite(file);
    const took = performance.now() - t0;
    rss = Math.max(rss, process.memoryUsage().rss);
    if (i === 0) {
      const step = s.nvtx[0]!;
      console.log(
        `first run (loads sql.js): ${took.toFixed(0)} ms; ${s.kernelCount} kernels, ${step.name} x${step.time.instances}: ${step.launches.avg} launches each`,
      );
    } else ms.push(took);
  }
  ms.sort((a, b) => a - b);
  console.log(
    `summarize: median ${ms[RUNS >> 1]!.toFixed(0)} ms, min ${ms[0]!.toFixed(0)} ms, max ${ms.at(-1)!.toFixed(0)} ms (${RUNS} runs); max RSS ${(rss / 1e6).toFixed(0)} MB`,
  );
  await inReader(file);
  await timelineWindows(file);
  await hostileFigures(dir);
  rmSync(dir, { recursive: true, force: true });
}

/** The CLI's read (summary) and the panel's (summary and trace) in the reader process. */
async function inReader(file: string): Promise<void> {
  for (const what of ["summary", "report"] as const) {
    const ms: number[] = [];
    const peaks: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      let stats: IsolatedStats | undefined;
      const o = { nsysPath: undefined, onReader: { end: (st: IsolatedStats) => (stats = st) } };
      const t0 = performance.now();
      await (what === "summary" ? loadNsysSummary(file, o) : loadNsysReport(file, o));
      ms.push(performance.now() - t0);
      peaks.push(stats?.peakRssMb ?? NaN);
    }
    ms.sort((a, b) => a - b);
    console.log(
      `reader process, ${what === "summary" ? "summary (the CLI)" : "summary + trace (the panel)"}: median ${ms[RUNS >> 1]!.toFixed(0)} ms, ` +
        `min ${ms[0]!.toFixed(0)}, max ${ms.at(-1)!.toFixed(0)} (${RUNS} runs); reader peak RSS ${peaks.map((p) => p.toFixed(0)).join("/")} MB; ` +
        `host RSS now ${(process.memoryUsage.rss() / 1e6).toFixed(0)} MB`,
    );
  }
}

/** The timeline's own query on the one lane: the whole trace at 1,000 px, then a 50 us window. */
function laneQueries(trace: NsysTimelineTrace): void {
  const [lane] = timelineLanes(trace);
  const end = trace.ops.at(-1)!.endNs;
  const mid = trace.ops[trace.ops.length >> 1]!.startNs;
  const whole: number[] = [];
  const zoom: number[] = [];
  for (let i = 0; i < 10; i++) {
    let t0 = performance.now();
    visibleBoxes(lane!, 0, end, end / 1000);
    whole.push(performance.now() - t0);
    t0 = performance.now();
    visibleBoxes(lane!, mid, mid + 50_000, 50);
    zoom.push(performance.now() - t0);
  }
  const median = (a: number[]): string => a.sort((x, y) => x - y)[a.length >> 1]!.toFixed(2);
  console.log(
    `visibleBoxes (${trace.ops.length} launches on one lane): whole trace at 1,000 px median ${median(whole)} ms, ` +
      `max ${whole.at(-1)!.toFixed(2)} ms; 50 us window median ${median(zoom)} ms (10 runs each)`,
  );
}

/** The panel's timeline: building its data once, then a window query per zoom/pan (1,500 px wide). */
async function timelineWindows(file: string): Promise<void> {
  const { summary, trace } = await readSqlite(file);
  laneQueries(trace);
  let t0 = performance.now();
  const data = new NsysTimelineData(trace);
  const r = data.report(summary, "x", "x", null);
  const build = performance.now() - t0;
  const span = r.endNs - r.startNs;
  const times: number[] = [];
  let boxes = 0;
  let wholeMs = 0;
  for (const zoom of [1, 10, 100, 1000]) {
    const w = span / zoom;
    for (let i = 0; i < 20; i++) {
      const from = r.startNs + ((span - w) * i) / 19;
      t0 = performance.now();
      const win = data.window({ type: "window", id: i, t0: from, t1: from + w, nsPerPixel: w / 1500 });
      times.push(performance.now() - t0);
      if (zoom === 1 && i === 0) {
        boxes = win.boxes.reduce((s, b) => s + b.length, 0);
        wholeMs = times.at(-1)!;
      }
    }
  }
  times.sort((a, b) => a - b);
  console.log(
    `timeline: data built in ${build.toFixed(0)} ms; window query median ${times[times.length >> 1]!.toFixed(2)} ms, ` +
      `max ${times.at(-1)!.toFixed(2)} ms (${times.length} windows at 1x-1000x zoom); ` +
      `the first, the whole trace at 1,500 px: ${wholeMs.toFixed(2)} ms, ${boxes} boxes`,
  );
}

void main();
