import { describe, it, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { parseNcuCsv, NcuCsvError, type NcuDetailsLaunch } from "../../../server/profile/ncuCsv";
import { summarize, summarizeNcuCsv } from "../../../server/profile/ncuSummary";

const FIX = join(__dirname, "../../fixtures/profile");
const torchCsv = (page: "details" | "raw"): string =>
  brotliDecompressSync(readFileSync(join(FIX, `h100-torch-block-detailed.${page}.csv.br`))).toString("utf8");

/** summarize(parseNcuCsv(x)) as the CLI used to compute it: the value, or the error's message. */
async function heldSummary(text: string): Promise<unknown> {
  try {
    const r = await parseNcuCsv({ text });
    if (r.page !== "details") return "raw";
    return summarize(r.launches);
  } catch (e) {
    return e instanceof NcuCsvError ? e.message : e;
  }
}

async function streamedSummary(text: string): Promise<unknown> {
  let page = "details";
  try {
    const s = await summarizeNcuCsv({ text }, (p) => (page = p));
    return page === "details" ? s : "raw";
  } catch (e) {
    return e instanceof NcuCsvError ? e.message : e;
  }
}

describe("the streamed summary (launch by launch, none held)", () => {
  it("equals summarize(parseNcuCsv()) on every details fixture, damaged ones included (same error)", async () => {
    const files = [
      ...readdirSync(FIX).filter((f) => f.endsWith(".csv") && !f.includes("raw") && !f.includes("source")),
      ...readdirSync(join(FIX, "h100"))
        .filter((f) => f.endsWith(".details.csv"))
        .map((f) => `h100/${f}`),
    ];
    assert.ok(files.length >= 15, files.join());
    for (const f of files) {
      const text = readFileSync(join(FIX, f), "utf8");
      assert.deepEqual(await streamedSummary(text), await heldSummary(text), f);
    }
  });

  it("stops at the header of a raw page when told to", async () => {
    const text = readFileSync(join(FIX, "h200-rmsnorm-full.raw.csv"), "utf8");
    await assert.rejects(
      summarizeNcuCsv({ text }, (page) => {
        if (page === "raw") throw new NcuCsvError("a raw page");
      }),
      /a raw page/,
    );
  });
});

describe("a real PyTorch export (H100, --set detailed, 268 launches of a bf16 transformer block)", () => {
  let launches: NcuDetailsLaunch[];
  let text: string;
  before(async () => {
    text = torchCsv("details");
    const r = await parseNcuCsv({ text });
    assert.equal(r.page, "details");
    launches = r.launches;
  });

  it("reads every launch, kernel names of up to ~1,300 characters kept verbatim", () => {
    assert.equal(launches.length, 268);
    assert.deepEqual(
      launches.map((l) => l.id),
      Array.from({ length: 268 }, (_, i) => i),
    );
    const longest = launches.reduce((a, l) => Math.max(a, l.kernel.length), 0);
    assert.ok(longest > 1200, `longest name ${longest}`);
    assert.match(
      launches[0]!.kernel,
      /^void at::<unnamed>::distribution_elementwise_grid_stride_kernel<float, 4,/,
    );
  });

  it("summarises every launch with a duration, streamed or not", async () => {
    const s = summarize(launches).kernels;
    assert.ok(s.every((k) => typeof k.durationNs === "number" && k.durationNs > 0));
    assert.deepEqual(await summarizeNcuCsv({ text }), { kernels: s });
  });

  it("its raw page reads too", async () => {
    const r = await parseNcuCsv({ text: torchCsv("raw") });
    assert.equal(r.page, "raw");
    assert.equal(r.launches.length, 268);
    assert.equal(
      r.launches[0]!.metrics.get("device__attribute_display_name")?.value,
      "NVIDIA H100 80GB HBM3",
    );
  });
});

describe("launch rows", () => {
  it("a launch whose rows come back after another launch's is an error, not two launches", async () => {
    const lines = readFileSync(join(FIX, "small.details.csv"), "utf8").split("\n");
    const firstOf1 = lines.findIndex((l) => l.startsWith('"1"'));
    lines.splice(firstOf1 + 3, 0, lines[2]!); // a row of launch 0 inside launch 1
    await assert.rejects(
      parseNcuCsv({ text: lines.join("\n") }),
      /launch 0 appears again after launch 1; the export looks damaged/,
    );
  });
});
