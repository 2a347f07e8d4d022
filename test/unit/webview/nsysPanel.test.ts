// The Nsight Systems panel's vscode-free parts: the host's timeline data on the real H100 report
// (lanes, names, extent, windows) and on 101,000 launches (a window stays a few boxes per pixel; how
// fast it is answered, npm run bench:nsys prints), the message guards, and how a report's kernel
// finds its source and its ncu filter.
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { kernelIdentifier, kernelLine, ncuKernelFilter } from "../../../extension/nsysPanelKernels";
import { NsysTimelineData } from "../../../extension/nsysPanelWindow";
import type { NsysGpuOp, NsysTrace } from "../../../server/profile/nsysReport";
import { readSqlite, summarizeTrace } from "../../../server/profile/nsysReportSummary";
import { isNsysHostMessage, isNsysRequest } from "../../../webview/nsys/protocol";

const STEP = join(__dirname, "../../fixtures/nsys/step.sqlite");

describe("the Nsight Systems panel's timeline data", () => {
  it("reads the real step report: one stream, the kernels' names, NVTX rows and a full window", async () => {
    const { summary, trace } = await readSqlite(STEP);
    const data = new NsysTimelineData(trace);
    const r = data.report(summary, "step.nsys-rep", "step.nsys-rep", null);
    assert.deepEqual(
      r.lanes.map((l) => [l.deviceId, l.streamId]),
      [[0, 7]],
    );
    assert.equal(r.lanes[0]!.ops, trace.ops.length);
    assert.ok(r.names.includes(summary.kernels[0]!.name));
    assert.ok(r.rangeRows >= 2, "warmup with inner ranges nested in it");
    assert.ok(r.startNs < r.endNs);
    // Wide pixels: neighbours merge; 1 ns pixels: every operation is its own box.
    const coarse = data.window({ type: "window", id: 3, t0: r.startNs, t1: r.endNs, nsPerPixel: 1e5 });
    assert.equal(coarse.id, 3);
    assert.equal(
      coarse.boxes[0]!.reduce((s, b) => s + b.n, 0),
      trace.ops.length,
    );
    assert.ok(coarse.boxes[0]!.length < trace.ops.length);
    const fine = data.window({ type: "window", id: 4, t0: r.startNs, t1: r.endNs, nsPerPixel: 1 });
    assert.equal(fine.boxes[0]!.length, trace.ops.length);
    const k = fine.boxes[0]!.find((b) => b.kind === "kernel")!;
    assert.ok(k.grid && k.block && r.names[k.k!]);
    assert.ok(fine.ranges.some((x) => x.name === "step"));
  });

  it("answers a window of 101,000 launches with a few boxes per pixel", () => {
    const ops: NsysGpuOp[] = Array.from({ length: 101_000 }, (_, i) => ({
      kind: "kernel",
      startNs: i * 5000,
      endNs: i * 5000 + 1200,
      deviceId: 0,
      streamId: 7,
      correlationId: i,
      globalPid: 1,
      name: `k${i % 7}`,
      shortName: `k${i % 7}`,
    }));
    const trace: NsysTrace = { ops, calls: [], ranges: [], gpus: [] };
    const data = new NsysTimelineData(trace);
    const r = data.report(summarizeTrace("x", trace), "x", "x", null);
    const w = data.window({
      type: "window",
      id: 1,
      t0: r.startNs,
      t1: r.endNs,
      nsPerPixel: (r.endNs - r.startNs) / 1500,
    });
    assert.ok(w.boxes[0]!.length <= 2 * 1500 + 2, `${w.boxes[0]!.length} boxes`);
  });
});

describe("the Nsight Systems panel's messages", () => {
  it("takes window requests and kernel actions, drops the rest", () => {
    assert.ok(isNsysRequest({ type: "window", id: 1, t0: 0, t1: 10, nsPerPixel: 0.5 }));
    assert.ok(isNsysRequest({ type: "openKernel", name: "k" }));
    assert.ok(isNsysRequest({ type: "profileKernel", name: "k" }));
    for (const junk of [
      null,
      [],
      { type: "window", id: 1, t0: 0, t1: 10, nsPerPixel: 0 },
      { type: "window", id: "1", t0: 0, t1: 10, nsPerPixel: 1 },
      { type: "window", id: 1, t0: Infinity, t1: 10, nsPerPixel: 1 },
      { type: "openKernel", name: "" },
      { type: "openKernel", name: 5 },
      { type: "run", command: "rm -rf /" },
      { type: "ready" },
    ])
      assert.equal(isNsysRequest(junk), false, JSON.stringify(junk));
    assert.ok(isNsysHostMessage({ type: "error", title: "t", message: "m" }));
    assert.ok(!isNsysHostMessage({ type: "report", title: "t" }));
    assert.ok(!isNsysHostMessage({ type: "window", id: 1, boxes: "x", ranges: [] }));
  });
});

describe("a report's kernel in the workspace", () => {
  const summary = {
    kernels: [
      {
        name: "void at::native::vectorized_elementwise_kernel<(int)4, F>(int, T2)",
        shortName: "vectorized_elementwise_kernel",
      },
      { name: "void ns::scale<float>(float *, int)", shortName: "<lambda>" },
    ],
  } as unknown as Parameters<typeof kernelIdentifier>[0];

  it("is named by the report's short name, else the demangled name's last identifier", () => {
    assert.equal(kernelIdentifier(summary, summary.kernels[0]!.name), "vectorized_elementwise_kernel");
    assert.equal(kernelIdentifier(summary, summary.kernels[1]!.name), "scale");
    assert.equal(kernelIdentifier(summary, "rmsnorm(float *)"), "rmsnorm");
  });

  it("is found at its __global__ definition, not a call or a declaration", () => {
    const src = [
      "__global__ void scale(float *x, int n);",
      "void host() { scale<<<1, 1>>>(nullptr, 0); }",
      "namespace ns {",
      "__global__ void scale(float *x, int n) { x[n] *= 2; }",
      "}",
    ].join("\n");
    assert.equal(kernelLine(src, "scale"), 3);
    assert.equal(kernelLine(src, "other"), undefined);
    assert.equal(kernelLine("void scale() {}", "scale"), undefined);
  });

  it("gets an exact, escaped ncu filter", () => {
    assert.equal(ncuKernelFilter("k"), "^k$");
    assert.equal(ncuKernelFilter("a.b(c)"), "^a\\.b\\(c\\)$");
  });
});
