import { describe, it, before } from "node:test";
import assert from "node:assert/strict";
import { createReadStream, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseNcuCsv, metricKey, NcuCsvError, type NcuDetailsLaunch } from "../../../server/profile/ncuCsv";
import { summarize, type KernelSummary } from "../../../server/profile/ncuSummary";
import { unitFactor } from "../../../server/profile/units";
import { compareWithPrintSummary, readPrintSummary } from "./printSummary";

const FIX = join(__dirname, "../../fixtures/profile");
const fx = (name: string): { path: string } => ({ path: join(FIX, name) });

async function details(name: string): Promise<NcuDetailsLaunch[]> {
  const r = await parseNcuCsv(fx(name));
  assert.equal(r.page, "details");
  return r.launches;
}

async function rejectsWith(name: string, pattern: RegExp): Promise<void> {
  await assert.rejects(
    async () => summarize(await details(name)),
    (e: unknown) => {
      assert.ok(e instanceof NcuCsvError, `expected NcuCsvError, got ${String(e)}`);
      assert.match(e.message, pattern);
      return true;
    },
  );
}

describe("ncu details export (H200, --set full, 110 launches)", () => {
  let launches: NcuDetailsLaunch[];
  let summary: KernelSummary[];
  before(async () => {
    launches = await details("h200-rmsnorm-full.details.csv");
    summary = summarize(launches).kernels;
  });

  it("has one entry per launch, in report order", () => {
    assert.equal(summary.length, 110);
    assert.deepEqual(
      summary.map((k) => k.id),
      Array.from({ length: 110 }, (_, i) => i),
    );
    assert.ok(summary.slice(0, 55).every((k) => k.kernel.startsWith("rmsnorm_scalar(__nv_bfloat16 *")));
    assert.ok(summary.slice(55).every((k) => k.kernel.startsWith("rmsnorm_vec(")));
  });

  it("reads launch 0 in base units: thousands separators and readable units gone", () => {
    const k = summary[0]!;
    assert.deepEqual(k.blockSize, [256, 1, 1]);
    assert.deepEqual(k.gridSize, [8192, 1, 1]);
    assert.equal(k.durationNs, 76_100); // "76.10" us
    assert.equal(k.memoryThroughputPct, 26.34);
    assert.equal(k.computeThroughputPct, 48.42);
    assert.equal(k.achievedOccupancyPct, 94.02);
    assert.equal(k.theoreticalOccupancyPct, 100);
    assert.equal(k.registersPerThread, 16);
    const l = launches[0]!;
    assert.equal(l.metrics.get(metricKey("GPU Speed Of Light Throughput", "Elapsed Cycles"))?.value, 113_457); // "113,457"
    assert.equal(l.metrics.get(metricKey("GPU Speed Of Light Throughput", "SM Frequency"))?.unit, "Hz");
  });

  it("keeps the same metric name apart by section (Memory Throughput is % and byte/s)", () => {
    const l = launches[0]!;
    const sol = l.metrics.get(metricKey("GPU Speed Of Light Throughput", "Memory Throughput"))!;
    const mwa = l.metrics.get(metricKey("Memory Workload Analysis", "Memory Throughput"))!;
    assert.deepEqual([sol.unit, sol.value], ["%", 26.34]);
    assert.equal(mwa.unit, "byte/s");
    assert.ok(Math.abs((mwa.value as number) - 1.07e12) < 1);
  });

  it("gives every rule result as a finding, with its estimated speedup", () => {
    const f = summary[0]!.findings;
    assert.equal(f.length, launches[0]!.rules.length);
    const l2 = f.find((x) => x.rule === "MemoryL2Compression")!;
    assert.equal(l2.type, "OPT");
    assert.equal(l2.estimatedSpeedupPct, 9.295);
    assert.match(l2.description, /\S/);
    // CPIStall appears twice (OPT with an estimate, INF without): both kept.
    assert.equal(f.filter((x) => x.rule === "CPIStall").length, 2);
    assert.equal(f.find((x) => x.rule === "SOLBottleneck")!.estimatedSpeedupPct, null);
  });

  it("agrees with ncu --print-summary for the same report (min, max and average of every metric)", () => {
    const ref = readPrintSummary(join(FIX, "h200-rmsnorm-full.print-summary.txt"));
    assert.equal(ref.length, 2);
    const { compared, mismatches } = compareWithPrintSummary(launches, ref, metricKey, unitFactor);
    assert.deepEqual(mismatches, []);
    assert.ok(compared > 150, `compared ${compared} metrics`);
  });

  it("parses the same from a stream as from a file", async () => {
    const r = await parseNcuCsv({
      stream: createReadStream(join(FIX, "small.details.csv"), { highWaterMark: 97 }),
    });
    const s = summarize(r.launches as NcuDetailsLaunch[]).kernels;
    assert.deepEqual(s, summarize(await details("small.details.csv")).kernels);
  });
});

describe("ncu raw export", () => {
  it("reads the units row and normalises each column", async () => {
    const r = await parseNcuCsv(fx("h200-rmsnorm-full.raw.csv"));
    assert.equal(r.page, "raw");
    const launches = r.launches;
    assert.equal(launches.length, 110);
    const l = launches[0]!;
    assert.deepEqual(l.metrics.get("gpu__time_duration.sum"), { unit: "ns", value: 76_096 });
    assert.equal(l.metrics.get("launch__grid_size")?.value, 8192); // "8,192"
    assert.equal(l.metrics.get("device__attribute_display_name")?.value, "NVIDIA H200");
    assert.equal(l.metrics.get("sass__inst_executed_register_spilling_mem_local")?.value, null); // "no data"
  });
});

describe("damaged and unusual exports", () => {
  let reference: KernelSummary[];
  before(async () => {
    reference = summarize(await details("small.details.csv")).kernels;
    assert.equal(reference.length, 3);
  });

  it("columns reordered (header and data together): same numbers", async () => {
    assert.deepEqual(summarize(await details("damaged-columns-reordered.csv")).kernels, reference);
  });

  it("units changed (ms, Mhz, Gbyte/s): same numbers in base units", async () => {
    const l = await details("units-changed.csv");
    assert.deepEqual(summarize(l).kernels, reference);
    const ref = await details("small.details.csv");
    for (const [section, name] of [
      ["GPU Speed Of Light Throughput", "SM Frequency"],
      ["Memory Workload Analysis", "Memory Throughput"],
    ] as const) {
      const a = l[0]!.metrics.get(metricKey(section, name))!;
      const b = ref[0]!.metrics.get(metricKey(section, name))!;
      assert.equal(a.unit, b.unit);
      assert.ok(Math.abs((a.value as number) - (b.value as number)) < 1e-3 * (b.value as number), name);
    }
  });

  it("stdout noise before, inside and after the CSV: same numbers", async () => {
    assert.deepEqual(summarize(await details("noisy-stdout.csv")).kernels, reference);
  });

  it("Windows line endings and a byte-order mark: same numbers", async () => {
    const text = readFileSync(join(FIX, "small.details.csv"), "utf8").replace(/\n/g, "\r\n");
    const r = await parseNcuCsv({ text: `\ufeff${text}` });
    assert.deepEqual(summarize(r.launches as NcuDetailsLaunch[]).kernels, reference);
  });

  it("old Mac line endings (a lone CR): same numbers", async () => {
    const text = readFileSync(join(FIX, "small.details.csv"), "utf8").replace(/\n/g, "\r");
    const r = await parseNcuCsv({ text });
    assert.deepEqual(summarize(r.launches as NcuDetailsLaunch[]).kernels, reference);
  });

  it("an old ncu layout (Kernel Time column, old metric names, nsecond, n/a) reads by name", async () => {
    const [k] = summarize(await details("old-ncu-2020.details.csv")).kernels;
    assert.equal(k!.durationNs, 76_100);
    assert.equal(k!.memoryThroughputPct, 26.34);
    assert.equal(k!.computeThroughputPct, 48.42);
    assert.equal(k!.registersPerThread, 16);
    assert.equal(k!.achievedOccupancyPct, null); // "n/a"
    assert.equal(k!.blockSize, null); // no Block Size column in that version
    assert.deepEqual(k!.findings, []);
  });

  it("truncated inside a row: clear error", () => rejectsWith("damaged-truncated-midrow.csv", /truncated/));
  it("truncated at a row boundary: clear error", () =>
    rejectsWith("damaged-truncated-rowboundary.csv", /truncated.*ID 55/));
  it("header names swapped over their data: clear error", () =>
    rejectsWith("damaged-header-swapped.csv", /not a number|unknown unit/));
  it("block and grid headers swapped: clear error", () =>
    rejectsWith("damaged-dims-swapped.csv", /disagrees with Launch Statistics/));
  it("a duration in %: clear error", () =>
    rejectsWith("damaged-unit-wrong-dimension.csv", /duration .* unit "%", expected "ns"/));
  it("an unknown unit: clear error", () => rejectsWith("damaged-unit-unknown.csv", /unknown unit "furlong"/));

  it("something that is not an ncu export: clear error", async () => {
    await assert.rejects(parseNcuCsv({ text: "hello,world\n1,2\n" }), /not an Nsight Compute CSV export/);
    await assert.rejects(parseNcuCsv(fx("rms.cu")), /not an Nsight Compute CSV export/);
  });

  it("a decimal comma is not read as a thousands separator", async () => {
    const text =
      '"ID","Kernel Name","Section Name","Metric Name","Metric Unit","Metric Value"\n"0","k","GPU Speed Of Light Throughput","Duration","us","1,5"\n';
    await assert.rejects(
      async () => summarize((await parseNcuCsv({ text })).launches as NcuDetailsLaunch[]),
      /not a number/,
    );
  });

  it("kernel names are kept verbatim, markup included", async () => {
    const name = "<img src=x onerror=alert(1)> k<float, 4>";
    const text = `"ID","Kernel Name","Section Name","Metric Name","Metric Unit","Metric Value"\n"0","${name}","GPU Speed Of Light Throughput","Duration","ns","1,024"\n`;
    const [k] = summarize((await parseNcuCsv({ text })).launches as NcuDetailsLaunch[]).kernels;
    assert.equal(k!.kernel, name);
    assert.equal(k!.durationNs, 1024);
  });
});
