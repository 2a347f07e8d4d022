// The streaming summary (nsysReportStream.ts) against the in-memory one (summarizeTrace over the
// whole trace), as JSON, on the real exports and on a synthetic one with what they lack: threads,
// start/end ranges, nested and overlapping ranges, domains, CUDA graphs, driver calls, copies and
// memsets, several GPUs and streams, equal start times across tables, repeated and varied durations.
// Then the reader's memory: a 300,000-launch export read in the reader process within a budget the
// in-memory trace needed more than (it fails on the version before the streaming summary).
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { loadNsysSummary } from "../../../server/profile/nsysReportLoad";
import { openNsysDb } from "../../../server/profile/nsysReportDb";
import { readNsysTrace } from "../../../server/profile/nsysReport";
import { TimelineMerger } from "../../../server/profile/nsysReportStream";
import { readSqlite, summarizeSqlite, summarizeTrace } from "../../../server/profile/nsysReportSummary";
import { timelineLanes, visibleBoxes } from "../../../server/profile/nsysTimeline";
import { tempDir } from "../../support/tempDir";
import { addSteps, PID, SynthExport, TID } from "./nsysSynth";

const FIX = join(__dirname, "../../fixtures/nsys");
const dir = tempDir("ckd-nsys-stream-");

async function inMemory(file: string): Promise<string> {
  const db = await openNsysDb(file);
  try {
    return JSON.stringify(summarizeTrace(file, readNsysTrace(db)));
  } finally {
    db.close();
  }
}

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function mixed(x: SynthExport): void {
  const rnd = random(26);
  const pick = (n: number): number => Math.floor(rnd() * n);
  const tids = [TID, TID + 1, TID + 2];
  x.domain(3, "trainer");
  // the fixture has no driver calls: a table as the runtime's (nsys gives both the same columns)
  x.db.run("CREATE TABLE CUPTI_ACTIVITY_KIND_DRIVER AS SELECT * FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE 0");
  x.db.run("BEGIN");
  let t = 1000;
  for (let s = 0; s < 40; s++) {
    const tid = tids[s % 3]!;
    const start = t;
    for (let i = 0; i < 25; i++) {
      const corr = x.nextCorrelation();
      const callStart = t + pick(3) * 500; // equal call starts now and then
      if (s % 7 === 3)
        x.insert("CUPTI_ACTIVITY_KIND_DRIVER", {
          start: callStart,
          end: callStart + 800,
          globalTid: tid,
          correlationId: corr,
        });
      else x.call({ start: callStart, end: callStart + 800, corr, tid });
      const k0 = callStart + 1000 + pick(4) * 1000;
      const graph = i % 11 === 5 ? 3 : 1;
      for (let g = 0; g < graph; g++)
        x.kernel({
          start: k0 + g * 700,
          end: k0 + g * 700 + 200 + pick(5) * 100,
          corr,
          name: ["void a(float*)", "void b<int>(int*)", "void c(half*)"][pick(3)]!,
          stream: 7 + pick(2),
        });
      if (i % 6 === 0) {
        const c2 = x.nextCorrelation();
        x.call({ start: callStart + 10, end: callStart + 20, corr: c2, tid, name: "cudaMemcpyAsync" });
        x.insert("CUPTI_ACTIVITY_KIND_MEMCPY", {
          start: k0, // the same start as a kernel: ties go kernels first
          end: k0 + 300 + pick(3) * 50,
          deviceId: pick(2),
          streamId: 7,
          correlationId: c2,
          globalPid: PID,
          bytes: 4096 * (1 + pick(4)),
          copyKind: 1 + pick(2),
        });
      }
      if (i % 9 === 0) {
        const c3 = x.nextCorrelation();
        x.call({ start: callStart + 30, end: callStart + 40, corr: c3, tid, name: "cudaMemsetAsync" });
        x.insert("CUPTI_ACTIVITY_KIND_MEMSET", {
          start: k0 + 50,
          end: k0 + 90,
          deviceId: 0,
          streamId: 8,
          correlationId: c3,
          globalPid: PID,
          bytes: 64,
        });
      }
      t += 5000;
    }
    x.range({ start, end: t, name: "step", tid });
    x.range({ start: start + 20_000, end: start + 60_000, name: "inner", tid }); // nested
    if (s % 5 === 0)
      x.range({ start, end: t + 50_000, name: "window", startEnd: true, tid: tids[(s + 1) % 3]! }); // overlapping, another thread
    if (s % 4 === 0) x.range({ start: start + 1000, end: start + 30_000, name: "fwd", tid, domainId: 3 });
    if (s === 20) x.range({ start, end: null, name: "never closed", tid });
    t += pick(3) * 10_000;
  }
  x.range({ start: 0, end: t, name: "all", tid: TID });
  x.db.run("COMMIT");
}

describe("nsys streaming summary", () => {
  for (const name of ["step", "bench", "nocuda"])
    it(`${name}.sqlite: the same JSON as the in-memory summary`, async () => {
      const file = join(FIX, `${name}.sqlite`);
      assert.equal(JSON.stringify(await summarizeSqlite(file)), await inMemory(file));
    });

  it("a synthetic export with threads, graphs, domains, copies, overlapping ranges: the same JSON", async () => {
    const x = await SynthExport.create();
    mixed(x);
    const file = join(dir, "mixed.sqlite");
    writeFileSync(file, x.bytes());
    x.db.close();
    const streamed = await summarizeSqlite(file);
    assert.ok(streamed.nvtx.length >= 5 && streamed.memory.length >= 2, "the export has what it is meant to");
    assert.equal(JSON.stringify(streamed), await inMemory(file));
  });

  it("the timeline past its limit: merged entries that count every operation, within the limit", async () => {
    const x = await SynthExport.create();
    addSteps(x, 20, 100);
    const file = join(dir, "merged.sqlite");
    writeFileSync(file, x.bytes());
    x.db.close();
    const { trace: whole } = await readSqlite(file);
    assert.equal(whole.merged, undefined);
    const m = new TimelineMerger(300);
    for (const op of whole.ops) m.add({ ...op });
    const t = m.trace(whole.ranges, whole.gpus);
    assert.ok(t.ops.length <= 300 && t.merged, `${t.ops.length} entries`);
    assert.equal(t.merged.operations, 2000);
    assert.equal(t.merged.entries, t.ops.length);
    const [lane] = timelineLanes(t);
    const boxes = visibleBoxes(lane!, 0, Infinity, 1);
    assert.equal(
      boxes.reduce((n, b) => n + b.count, 0),
      2000,
    );
    assert.ok(boxes.every((b) => b.count > 1 === (b.op === undefined)));
  });
});

describe("nsys reader memory", () => {
  it("a 300,000-launch export is summarized within 400 MB of reader memory", async () => {
    const x = await SynthExport.create();
    addSteps(x, 3000, 100);
    const file = join(dir, "launches300k.sqlite");
    writeFileSync(file, x.bytes());
    x.db.close();
    let peak: number | undefined;
    // main held an object per kernel, call and copy: 560-600 MB here; the budget's default for this 29 MB file is 1.4 GB
    const s = await loadNsysSummary(file, {
      nsysPath: undefined,
      limits: { memoryMb: 400, seconds: 600 },
      onReader: { end: (st) => (peak = st.peakRssMb) },
    });
    assert.equal(s.kernelCount, 300_000);
    assert.equal(s.nvtx[0]!.launches.total, 300_000);
    if (peak !== undefined) assert.ok(peak <= 400, `reader peak ${peak} MB`);
  });
});
