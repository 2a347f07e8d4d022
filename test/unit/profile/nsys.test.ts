import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseNsysStats, NsysCsvError } from "../../../server/profile/nsysCsv";
import { checkProfileResult, nsysProfileAndStats, NsysError } from "../../../server/profile/nsysCli";

const FIX = join(__dirname, "../../fixtures/profile");
const read = (n: string): string => readFileSync(join(FIX, n), "utf8");

describe("nsys stats CSV", () => {
  it("reads cuda_gpu_kern_sum and cuda_gpu_mem_time_sum past the preamble", () => {
    const s = parseNsysStats(read("nsys-stats-cuda_gpu_sum.txt"));
    assert.equal(s.kernels?.length, 2);
    const [a, b] = s.kernels;
    assert.match(a!.name, /^rmsnorm_scalar\(__nv_bfloat16 \*, const/);
    assert.deepEqual(
      [a!.timePct, a!.totalNs, a!.instances, a!.avgNs, a!.medNs, a!.minNs, a!.maxNs, a!.stdDevNs],
      [61.6, 4185472, 55, 76099.5, 76032, 75424, 77408, 412.3],
    );
    assert.equal(b!.instances, 55);
    assert.deepEqual(s.memory, [
      {
        operation: "[CUDA memcpy Host-to-Device]",
        timePct: 100,
        totalNs: 5242912,
        count: 2,
        avgNs: 2621456,
        medNs: 2621456,
        minNs: 1472,
        maxNs: 5241440,
        stdDevNs: 3705184.6,
      },
    ]);
    assert.deepEqual(s.notes, []);
  });

  it("reads the old gpukernsum / gpumemtimesum layout by column name", () => {
    const s = parseNsysStats(read("nsys-stats-old-gpukernsum.txt"));
    assert.equal(s.kernels?.[1]?.avgNs, 47520);
    assert.equal(s.kernels?.[1]?.medNs, null); // no median column then
    assert.equal(s.memory?.[0]?.operation, "[CUDA memcpy HtoD]");
    assert.equal(s.memory?.[0]?.count, 2);
  });

  it("keeps SKIPPED notes for a program without CUDA work", () => {
    const s = parseNsysStats(read("nsys-stats-skipped.txt"));
    assert.equal(s.kernels, null);
    assert.equal(s.notes.length, 2);
    assert.match(s.notes[0]!, /does not contain CUDA kernel data/);
  });

  it("truncated or foreign output is an error", () => {
    const text = read("nsys-stats-cuda_gpu_sum.txt");
    const cut = text.slice(0, text.indexOf('"rmsnorm_vec') + 40);
    assert.throws(() => parseNsysStats(cut), NsysCsvError);
    assert.throws(() => parseNsysStats("hello\nworld\n"), /no cuda_gpu_kern_sum/);
    const bad = text.replace('"4185472"', '"41x5472"');
    assert.throws(() => parseNsysStats(bad), /Total Time \(ns\) "41x5472" is not a number/);
  });
});

describe("nsys profile failures", () => {
  it("the real H100 outcome (exit 0, only a .qdstrm): names the stream and says the import failed", () => {
    const output = read("nsys-profile-h100.log");
    assert.throws(
      () => checkProfileResult({ exitCode: 0, output }, "/root/out/w/nsys-rms.nsys-rep", false),
      (e: unknown) =>
        e instanceof NsysError &&
        e.code === "NO_REPORT" &&
        /collected \/root\/out\/w\/nsys-rms\.qdstrm but did not turn it into .*nsys-rms\.nsys-rep/.test(
          e.message,
        ) &&
        /nsys said: .*Generated/.test(e.message),
    );
  });

  it("nsys missing: says so", async () => {
    await assert.rejects(
      nsysProfileAndStats({
        nsysPath: "/nonexistent/nsys",
        command: ["true"],
        report: join(tmpdir(), "ckd-nsys-never"),
      }),
      (e: unknown) => e instanceof NsysError && e.code === "NOT_FOUND",
    );
  });

  it("importer error with exit code 0 and no report: nsys's own message", () => {
    const output =
      "Collecting data...\nGenerating '/tmp/nsys-report-1234.qdstrm'\nImporter error status: An unknown error occurred.\n";
    assert.throws(
      () => checkProfileResult({ exitCode: 0, output }, "r.nsys-rep", false),
      (e: unknown) =>
        e instanceof NsysError &&
        e.code === "NO_REPORT" &&
        /Importer error status: An unknown error occurred/.test(e.message),
    );
  });
});
