import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseNsysStats, NsysCsvError } from "../../support/nsysStatsCsv";

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
