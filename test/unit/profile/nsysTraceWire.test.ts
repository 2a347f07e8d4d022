// The trace's columns (nsysTraceWire.ts) give back the same trace: each kind of operation with
// exactly its own optional fields, names through the table, the real export's whole trace.
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { serialize, deserialize } from "node:v8";
import type { NsysTimelineTrace } from "../../../server/profile/nsysReport";
import { readSqlite } from "../../../server/profile/nsysReportSummary";
import { fromWire, toWire, type WireTrace } from "../../../server/profile/nsysTraceWire";

/** Through the columns and the IPC channel's own serialization. */
const roundTrip = (t: NsysTimelineTrace): NsysTimelineTrace =>
  fromWire(deserialize(serialize(toWire(t))) as WireTrace);

describe("nsys trace wire", () => {
  it("the real export's trace comes back equal", async () => {
    const { trace } = await readSqlite(join(__dirname, "../../fixtures/nsys/step.sqlite"));
    assert.ok(
      trace.ops.some((o) => o.kind !== "kernel"),
      "the fixture has copies or memsets",
    );
    assert.deepStrictEqual(roundTrip(trace), trace);
  });

  it("each kind keeps only its own fields; large ids stay exact", () => {
    const base = { startNs: 1, endNs: 2, deviceId: 0, streamId: 7, correlationId: 3, globalPid: 2 ** 52 + 1 };
    const trace: NsysTimelineTrace = {
      ops: [
        {
          ...base,
          kind: "kernel",
          name: "void k<int>(int*)",
          shortName: "k",
          grid: [4, 1, 1],
          block: [128, 2, 1],
          registersPerThread: 32,
        },
        { ...base, kind: "kernel", name: "void k<int>(int*)", shortName: "k" },
        {
          ...base,
          kind: "memcpy",
          name: "[CUDA memcpy Host-to-Device]",
          shortName: "[CUDA memcpy Host-to-Device]",
          bytes: 0,
        },
        { ...base, kind: "memset", name: "[CUDA memset]", shortName: "[CUDA memset]" },
      ],
      ranges: [{ name: "step", domain: null, style: "PushPop", startNs: 0, endNs: 9, globalTid: 1 }],
      gpus: [{ id: 0, name: "H100" }],
    };
    assert.deepStrictEqual(roundTrip(trace), trace);
  });
});
