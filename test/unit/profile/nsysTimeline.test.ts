// The timeline's queries: lanes per stream, what is visible in a window (sub-pixel operations
// merged, so a 100,000-launch trace returns a few boxes per pixel), NVTX ranges with their depth.
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { NsysGpuOp, NsysTrace } from "../../../server/profile/nsysReport";
import { readNsysTrace } from "../../../server/profile/nsysReport";
import { openNsysDb } from "../../../server/profile/nsysReportDb";
import {
  timelineLanes,
  timelineRanges,
  visibleBoxes,
  visibleRanges,
} from "../../../server/profile/nsysTimeline";

const kernel = (startNs: number, endNs: number, streamId = 7): NsysGpuOp => ({
  kind: "kernel",
  startNs,
  endNs,
  deviceId: 0,
  streamId,
  correlationId: startNs,
  globalPid: 1,
  name: "k",
  shortName: "k",
});

/** 101,000 kernels of 1.2 us, one every 5 us, on one stream; 1,000 "step" ranges. */
function bigTrace(): NsysTrace {
  const ops = Array.from({ length: 101_000 }, (_, i) => kernel(i * 5000, i * 5000 + 1200));
  const ranges = Array.from({ length: 1000 }, (_, s) => ({
    name: "step",
    domain: null,
    style: "PushPop" as const,
    startNs: s * 505_000,
    endNs: s * 505_000 + 504_000,
    globalTid: 1,
  }));
  return { ops, calls: [], ranges, gpus: [] };
}

describe("nsys timeline", () => {
  it("the real report: one lane for its one stream, all 90 GPU operations; ranges nested", async () => {
    const db = await openNsysDb(join(__dirname, "../../fixtures/nsys/step.sqlite"));
    const t = readNsysTrace(db);
    db.close();
    const lanes = timelineLanes(t);
    assert.deepEqual(
      lanes.map((l) => [l.deviceId, l.streamId, l.ops.length]),
      [[0, 7, 90]],
    );
    const all = visibleBoxes(lanes[0]!, 0, Infinity, 1);
    assert.equal(all.length, 90, "at 1 ns per pixel nothing merges");
    const ranges = timelineRanges(t);
    assert.deepEqual(
      ranges.map((r) => `${r.name}@${r.depth}`),
      ["warmup@0", "inner@1", ...Array(5).fill(["step@0", "inner@1"]).flat()],
    );
  });

  it("zoomed in: exactly the operations that overlap the window, one that started before t0 too", () => {
    const lane = timelineLanes({
      ops: [kernel(0, 100), kernel(50, 500, 7), kernel(600, 700)],
      ranges: [],
      gpus: [],
    })[0]!;
    const boxes = visibleBoxes(lane, 400, 650, 0.1);
    assert.deepEqual(
      boxes.map((b) => [b.startNs, b.endNs, b.count, b.op?.startNs]),
      [
        [50, 500, 1, 50],
        [600, 700, 1, 600],
      ],
    );
  });

  // How long these queries take is npm run bench:nsys's to print ("visibleBoxes" line), not a test's to bound.
  it("100,000 launches: the whole trace at 1,000 px is a few boxes per pixel", () => {
    const t = bigTrace();
    const [lane] = timelineLanes(t);
    const end = t.ops.at(-1)!.endNs;
    const whole = visibleBoxes(lane!, 0, end, end / 1000);
    const zoom = visibleBoxes(lane!, 250_000_000, 250_050_000, 50); // 50 us at 1,000 px
    assert.ok(whole.length <= 2000, `${whole.length} boxes for 1,000 px`);
    assert.equal(
      whole.reduce((a, b) => a + b.count, 0),
      101_000,
      "every operation is in some box",
    );
    assert.deepEqual(
      zoom.map((b) => b.count),
      Array(11).fill(1), // kernels start every 5 us; both ends of the window included
    );
    assert.equal(visibleRanges(timelineRanges(t), 250_000_000, 250_050_000).length, 1);
  });
});
