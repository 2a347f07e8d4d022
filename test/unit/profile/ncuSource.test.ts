import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { hottest, parseNcuSource } from "../../../server/profile/ncuSource";
import { NcuCsvError } from "../../../server/profile/ncuCsv";

const FIX = join(__dirname, "../../fixtures/profile");
const path = join(FIX, "rms-profile.source.csv");

describe("ncu source page (cuda,sass layout)", () => {
  it("groups rows per file and sums the SASS rows of each CUDA line", async () => {
    const r = await parseNcuSource({ path });
    assert.deepEqual(
      r.files.map((f) => f.path),
      [
        "/usr/local/cuda/targets/x86_64-linux/include/cuda_bf16.hpp",
        "/work/main/test/fixtures/profile/rms.cu",
      ],
    );
    const rms = r.files[1]!;
    assert.deepEqual(rms.kernels, [
      "rmsnorm_vec(__nv_bfloat16 *, const __nv_bfloat16 *, const __nv_bfloat16 *, float, int)",
    ]);
    assert.deepEqual(
      rms.lines.map((l) => [l.line, l.samples]),
      [
        [9, 190],
        [38, 1480],
        [41, 260],
        [44, 40],
        [45, 1210],
      ],
    );
    assert.equal(rms.totalSamples, 3180);
    const l38 = rms.lines.find((l) => l.line === 38)!;
    assert.equal(l38.notIssuedSamples, 1170);
    assert.equal(l38.instructionsExecuted, 786_432); // "393,216" twice
    assert.match(l38.source ?? "", /for \(int i = threadIdx.x; i < vh/);
    assert.deepEqual(
      hottest(rms, 2).map((l) => l.line),
      [38, 45],
    );
  });

  it("stdout noise around the export is ignored", async () => {
    const text = `==PROF== Connected to process 1\n${readFileSync(path, "utf8")}==PROF== Disconnected\n`;
    const r = await parseNcuSource({ text });
    assert.equal(r.files[1]!.totalSamples, 3180);
  });

  it("a truncated export and a details page are errors", async () => {
    const text = readFileSync(path, "utf8");
    await assert.rejects(parseNcuSource({ text: text.slice(0, text.lastIndexOf('"38"') + 30) }), NcuCsvError);
    await assert.rejects(
      parseNcuSource({ path: join(FIX, "small.details.csv") }),
      /not an ncu source page export/,
    );
    const bad = text.replace('"1170"', '"11x70"');
    await assert.rejects(parseNcuSource({ text: bad }), /samples "11x70" is not a number/);
  });
});
