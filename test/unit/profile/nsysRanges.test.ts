// Launches per NVTX range on synthetic exports (the real schema, our events): what no small real
// report shows — start/end ranges that span threads, CUDA graphs (one launch, several kernels),
// named domains, ranges never closed, launches on another thread.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { summarizeSqlite, type NsysSummary } from "../../../server/profile/nsysReportSummary";
import { addSteps, SynthExport, TID } from "./nsysSynth";
import { tempDir } from "../../support/tempDir";

const dir = tempDir("ckd-nsys-synth-");
let n = 0;
async function summarize(x: SynthExport): Promise<NsysSummary> {
  const file = join(dir, `s${n++}.sqlite`);
  writeFileSync(file, x.bytes());
  return summarizeSqlite(file);
}

describe("nsys report: launches per range (synthetic exports)", () => {
  it("steps of known size: launches, kernels, distinct kernels, gaps", async () => {
    const x = await SynthExport.create();
    addSteps(x, 4, 7);
    const s = await summarize(x);
    const step = s.nvtx.find((r) => r.name === "step")!;
    assert.deepEqual(
      step.instances.map((i) => [i.launches, i.kernels, i.distinctKernels]),
      Array(4).fill([7, 7, 3]),
    );
    // kernels every 5 us, 2 us long: 3 us of gap between consecutive ones
    assert.deepEqual(
      step.instances.map((i) => [i.kernelTimeNs, i.gapNs]),
      Array(4).fill([14_000, 6 * 3000]),
    );
    assert.deepEqual(
      step.topKernels.map((k) => [k.shortName, k.count]),
      [
        ["void k_add", 12],
        ["void k_mul", 8],
        ["void k_relu", 8],
      ],
    );
    assert.equal(
      s.kernels.reduce((a, k) => a + k.instances, 0),
      28,
    );
  });

  it("a CUDA graph launch: one launch, several kernels", async () => {
    const x = await SynthExport.create();
    const corr = x.nextCorrelation();
    x.call({ start: 100, end: 200, corr, name: "cudaGraphLaunch_v10000" });
    for (let i = 0; i < 5; i++) x.kernel({ start: 1000 + i * 100, end: 1050 + i * 100, corr, name: `g${i}` });
    x.range({ start: 50, end: 300, name: "step" });
    const i = (await summarize(x)).nvtx[0]!.instances[0]!;
    assert.deepEqual([i.launches, i.kernels, i.distinctKernels, i.gpuSpanNs, i.gapNs], [1, 5, 5, 450, 200]);
  });

  it("push/pop ranges count only their own thread's launches; start/end ranges the whole process", async () => {
    const x = await SynthExport.create();
    const other = TID + 1;
    for (const [tid, t] of [
      [TID, 100],
      [other, 150],
      [TID, 200],
    ] as const) {
      const corr = x.nextCorrelation();
      x.call({ start: t, end: t + 10, corr, tid });
      x.kernel({ start: t + 1000, end: t + 1010, corr, name: "k" });
    }
    x.range({ start: 50, end: 300, name: "pushpop" });
    x.range({ start: 50, end: 300, name: "startend", startEnd: true, tid: other });
    const s = await summarize(x);
    const get = (name: string) => s.nvtx.find((r) => r.name === name)!;
    assert.equal(get("pushpop").launches.total, 2);
    assert.equal(get("startend").launches.total, 3);
    assert.equal(get("startend").style, "StartEnd");
  });

  it("named domains, text from StringIds, unclosed ranges left out", async () => {
    const x = await SynthExport.create();
    x.domain(7, "myapp");
    x.range({ start: 0, end: 10, name: "fwd", domainId: 7 });
    x.range({ start: 20, end: null, name: "never closed" });
    x.insert("NVTX_EVENTS", {
      start: 30,
      end: 40,
      eventType: 59,
      textId: x.string("from ids"),
      globalTid: TID,
    });
    const s = await summarize(x);
    assert.deepEqual(
      s.nvtx.map((r) => [r.domain, r.name, r.time.instances, r.launches.total]),
      [
        ["myapp", "fwd", 1, 0],
        [null, "from ids", 1, 0],
      ],
    );
  });

  it("idle share over overlapping streams counts overlap once", async () => {
    const x = await SynthExport.create();
    x.kernel({ start: 0, end: 100, corr: 1, name: "a", stream: 1 });
    x.kernel({ start: 50, end: 150, corr: 2, name: "b", stream: 2 });
    x.kernel({ start: 300, end: 400, corr: 3, name: "c", stream: 1 });
    const s = await summarize(x);
    assert.deepEqual(s.gpuIdle, [{ deviceId: 0, startNs: 0, endNs: 400, busyNs: 250, idlePct: 37.5 }]);
    assert.equal(s.launches, 3, "launches are told apart by correlationId, API calls or not");
    assert.equal(s.kernelCount, 3);
  });
});
