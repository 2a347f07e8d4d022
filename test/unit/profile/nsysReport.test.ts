// The SQLite export of a real report (H100, nsys 2025.3.1, test/gpu/nsys/step.py under nsys) against
// nsys's own numbers from the same report (nsys stats --format csv) and against torch.profiler's
// independent count of the same program.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parse } from "csv-parse/sync";
import { parseNsysStats } from "../../support/nsysStatsCsv";
import { summarizeSqlite, type NsysSummary } from "../../../server/profile/nsysReportSummary";

const FIX = join(__dirname, "../../fixtures/nsys");
const read = (n: string): string => readFileSync(join(FIX, n), "utf8");

/** The CSV table in an `nsys stats --output -` capture, past its "Processing [...]" preamble. */
function statsTable(n: string): Record<string, string>[] {
  const lines = read(n).split(/\r?\n/);
  const header = lines.findIndex((l) => /^(Time \(%\)|Range,|Total \(MB\))/.test(l));
  return parse(lines.slice(header).join("\n"), { columns: true, skip_empty_lines: true });
}

/** A kernel row's name and figures, as both our summary and `nsys stats` give them. */
interface KernelFigures {
  name: string;
  instances: number;
  totalNs: number | null;
  avgNs: number | null;
  medNs: number | null;
  minNs: number | null;
  maxNs: number | null;
  stdDevNs: number | null;
  timePct: number | null;
}
const kernelFigures = (k: KernelFigures) => [
  k.name,
  k.instances,
  k.totalNs,
  k.avgNs,
  k.medNs,
  k.minNs,
  k.maxNs,
  k.stdDevNs,
  k.timePct,
];

let cached: NsysSummary | undefined;
const step = async (): Promise<NsysSummary> => (cached ??= await summarizeSqlite(join(FIX, "step.sqlite")));

describe("nsys report: real step.py export vs nsys stats, kernels and copies", () => {
  it("every kernel's instances, total, mean, median, min, max, stddev and share equal cuda_gpu_kern_sum", async () => {
    const s = await step();
    const truth = parseNsysStats(read("step.stats.cuda_gpu_kern_sum.csv")).kernels!;
    assert.equal(s.kernels.length, truth.length);
    for (const [i, t] of truth.entries()) {
      const k = s.kernels[i]!;
      assert.equal(k.name, t.name, "same names, same order (by total time)");
      assert.deepEqual(kernelFigures(k), kernelFigures(t), t.name);
    }
    assert.equal(s.kernelCount, 72);
    assert.equal(s.launches, 72);
  });

  it("memory operations equal cuda_gpu_mem_time_sum, bytes equal cuda_gpu_mem_size_sum", async () => {
    const s = await step();
    const truth = parseNsysStats(read("step.stats.cuda_gpu_mem_time_sum.csv")).memory!;
    assert.deepEqual(
      s.memory.map((m) => [
        m.operation,
        m.instances,
        m.totalNs,
        m.avgNs,
        m.medNs,
        m.minNs,
        m.maxNs,
        m.stdDevNs,
      ]),
      truth.map((t) => [t.operation, t.count, t.totalNs, t.avgNs, t.medNs, t.minNs, t.maxNs, t.stdDevNs]),
    );
    const sizes = statsTable("step.stats.cuda_gpu_mem_size_sum.csv");
    assert.equal(sizes.length, 3);
    for (const row of sizes) {
      const m = s.memory.find((x) => x.operation === row.Operation)!;
      assert.equal((m.bytes / 1e6).toFixed(3), row["Total (MB)"], row.Operation);
      assert.equal(m.instances, Number(row.Count), row.Operation);
    }
  });
});

describe("nsys report: real step.py export, NVTX ranges and launches per step", () => {
  it("NVTX ranges equal nvtx_sum (range times) and nvtx_gpu_proj_sum (GPU ops, projected time)", async () => {
    const s = await step();
    for (const row of statsTable("step.stats.nvtx_sum.csv")) {
      const r = s.nvtx.find((x) => `:${x.name}` === row.Range)!;
      assert.deepEqual(
        [
          r.time.instances,
          r.time.totalNs,
          r.time.avgNs,
          r.time.medNs,
          r.time.minNs,
          r.time.maxNs,
          r.time.stdDevNs,
        ],
        ["Instances", "Total Time (ns)", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)"].map(
          (c) => Number(row[c]),
        ),
        row.Range,
      );
      assert.equal(r.timePct, Number(row["Time (%)"]));
      assert.equal(r.style, row.Style);
    }
    for (const row of statsTable("step.stats.nvtx_gpu_proj_sum.csv")) {
      const r = s.nvtx.find((x) => `:${x.name}` === row.Range)!;
      assert.equal(r.gpuOps, Number(row["Total GPU Ops"]), `${row.Range} GPU ops`);
      assert.equal(r.gpuSpanNs, Number(row["Total Proj Time (ns)"]), `${row.Range} projected time`);
    }
  });

  it("launches per step equal the program's own count and torch.profiler's", async () => {
    const s = await step();
    const steps = s.nvtx.find((r) => r.name === "step")!;
    const counted = read("step.torch-profiler.jsonl")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { kernels: number; profiler_kernels: number });
    assert.deepEqual(
      steps.instances.map((i) => i.launches),
      counted.map((c) => c.profiler_kernels),
    );
    assert.deepEqual(
      counted.map((c) => c.kernels),
      [9, 11, 13, 15, 17],
    );
    assert.deepEqual(
      steps.instances.map((i) => [i.kernels, i.gpuOps, i.distinctKernels]),
      counted.map((c) => [c.kernels, c.kernels + 3, 4]), // + H2D, D2H, the memset before the sum
    );
    assert.deepEqual(steps.launches, { total: 65, avg: 13, min: 9, max: 17 });
    // "inner" holds the first half of each step's elementwise ops, and once the warm-up's
    assert.deepEqual(
      s.nvtx.find((r) => r.name === "inner")!.instances.map((i) => i.launches),
      [1, 4, 5, 6, 7, 8],
    );
    assert.equal(steps.topKernels[0]!.shortName, "vectorized_elementwise_kernel");
    assert.equal(
      steps.topKernels.reduce((a, k) => a + k.count, 0),
      65,
    );
  });

  it("per-instance GPU time and launch gaps add up", async () => {
    const s = await step();
    for (const r of s.nvtx)
      for (const i of r.instances) {
        assert.ok(i.gapNs >= 0 && i.gapNs <= i.gpuSpanNs, `${r.name}: gap within the span`);
        assert.ok(i.kernelTimeNs <= i.gpuSpanNs, `${r.name}: kernels fit the span`);
      }
    const steps = s.nvtx.find((r) => r.name === "step")!;
    assert.equal(
      steps.gapNs,
      steps.instances.reduce((a, i) => a + i.gapNs, 0),
    );
  });

  it("GPU idle share: busy time is the union of kernels, copies and memsets", async () => {
    const s = await step();
    assert.equal(s.gpuIdle.length, 1);
    const g = s.gpuIdle[0]!;
    const busy = s.kernels.reduce((a, k) => a + k.totalNs, 0) + s.memory.reduce((a, m) => a + m.totalNs, 0);
    assert.equal(g.busyNs, busy, "one stream: nothing overlaps, so the union is the sum");
    assert.equal(g.idlePct, Math.round(1000 * (1 - busy / (g.endNs - g.startNs))) / 10);
    assert.deepEqual(s.gpus, [{ id: 0, name: "NVIDIA H100 80GB HBM3" }]);
  });
});

describe("nsys report: our benchmark harness under nsys", () => {
  it("a real report with no CUDA data (the harness's runner ended by SIGTERM, nsys 2025.3) summarizes as empty", async () => {
    const s = await summarizeSqlite(join(FIX, "nocuda.sqlite"));
    assert.deepEqual([s.kernelCount, s.kernels, s.memory, s.gpuIdle, s.nvtx], [0, [], [], [], []]);
    assert.match(read("nocuda.stats.cuda_gpu_kern_sum.csv"), /SKIPPED: .* does not contain CUDA kernel data/);
  });

  it("our benchmark harness under nsys (cuda-kernel-dev bench examples/rmsnorm.cu): kernels equal cuda_gpu_kern_sum", async () => {
    const s = await summarizeSqlite(join(FIX, "bench.sqlite"));
    const truth = parseNsysStats(read("bench.stats.cuda_gpu_kern_sum.csv")).kernels!;
    assert.deepEqual(s.kernels.map(kernelFigures), truth.map(kernelFigures));
    assert.deepEqual(
      s.kernels.map((k) => k.shortName),
      ["rmsnorm_kernel", "ckd_l2_flush"],
      "the kernel and the harness's L2 flush before each timed launch",
    );
  });
});
