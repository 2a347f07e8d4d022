// Bounded fuzzing of the ncu/nsys/nvidia-smi/ptxas/nvcc parsers on mutated real outputs (seeded:
// a failure prints its target and seed; `npm run fuzz -- N` runs N cases per target).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { demangle, kernelDisplayName } from "../../../server/compiler/demangle";
import { parsePtxasResources } from "../../../server/compiler/ptxasResources";
import { NcuCsvError } from "../../../server/profile/ncuCsv";
import { parseNcuSource } from "../../../server/profile/ncuSource";
import { NvidiaSmiError, parseNvidiaSmiXml } from "../../../server/profile/nvidiaSmi";
import { runCase } from "./oracle";
import { allTargets, ptxasTarget, type Facts, type Target } from "./targets";

/** Cases per target: every parse takes a few milliseconds a case (the ncu ones ~3 ms since their own CSV reader). */
const CASES = 300;

describe("parser fuzz: mutated real outputs never give a silently wrong number", () => {
  let targets: Target[] = [];
  before(async () => {
    targets = await allTargets();
  });

  it("every target parses its unmutated fixture", () => {
    for (const t of targets) assert.ok(t.base.size > 0, `${t.name} gave nothing`);
    const withNumbers = targets.filter((t) => [...t.base.values()].some((v) => typeof v === "number"));
    // All but the demangler (names) and the location-less nvcc output give numbers.
    assert.ok(withNumbers.length >= targets.length - 2, withNumbers.map((t) => t.name).join());
  });

  it("each mutation gives a clear error or the untouched numbers unchanged", async () => {
    const violations: string[] = [];
    const tally = { parsed: 0, "clear-error": 0 };
    for (const t of targets)
      for (let seed = 1; seed <= CASES; seed++) {
        const o = await runCase(t, seed);
        if (o.kind === "violation") violations.push(o.detail!);
        else tally[o.kind]++;
      }
    assert.deepEqual(violations.slice(0, 5), [], `${violations.length} violations`);
    // Both outcomes occur: the mutations neither always break nor never break the inputs.
    assert.ok(tally.parsed > 0 && tally["clear-error"] > 0, JSON.stringify(tally));
  });

  it("the oracle catches a parser that credits a stray line to the wrong kernel", async () => {
    // A naive ptxas reader: the last "Used" line before the next entry wins.
    const naive = async (text: string): Promise<Facts> => {
      await Promise.resolve();
      const f: Facts = new Map();
      let key: string | undefined;
      for (const line of text.split("\n")) {
        const e = /entry function '([^']+)' for '([^']+)'/.exec(line);
        if (e) key = `${e[2]}|${e[1]}`;
        const u = /Used (\d+) registers/.exec(line);
        if (u && key) f.set(`${key}|registers`, Number(u[1]));
      }
      return f;
    };
    const real = await ptxasTarget("test/fixtures/compiler/ptxas-v-kernels-multi.txt");
    const t: Target = { ...real, parse: naive, base: await naive(real.lines.join("\n")) };
    let caught = 0;
    for (let seed = 1; seed <= 300; seed++) if ((await runCase(t, seed)).kind === "violation") caught++;
    assert.ok(caught > 0);
  });
});

describe("parser fuzz findings, kept as regressions", () => {
  const multi = readFileSync(join(__dirname, "../../fixtures/compiler/ptxas-v-kernels-multi.txt"), "utf8");

  it("ptxas: a kernel whose entry line is lost does not lend its registers to the kernel before it", () => {
    const lines = multi.split("\n");
    const second = lines.findIndex((l, i) => i > 1 && l.includes("Compiling entry function"));
    const before = parsePtxasResources(multi).find(
      (k) => k.symbol === "c_linkage_scale" && k.arch === "sm_75",
    )!;
    lines.splice(second, 1);
    const after = parsePtxasResources(lines.join("\n")).find(
      (k) => k.symbol === "c_linkage_scale" && k.arch === "sm_75",
    );
    // Either gone (its block now holds two "Used" lines) or unchanged; never the next kernel's 40 registers.
    assert.ok(after === undefined || after.registers === before.registers, JSON.stringify(after));
  });

  it("ptxas: an entry with no Used line is left out rather than shown with 0 registers", () => {
    const cut = multi
      .split("\n")
      .filter((l) => !l.includes("Used 8 registers"))
      .join("\n");
    assert.ok(parsePtxasResources(multi).some((k) => k.symbol === "c_linkage_scale"));
    assert.ok(!parsePtxasResources(cut).some((k) => k.symbol === "c_linkage_scale" && k.registers === 0));
  });

  it("demangler: a symbol cut after a cv-qualifier is not demangled (it used to grow a string until RangeError)", () => {
    assert.equal(demangle("_Z1fPK"), undefined);
    assert.equal(kernelDisplayName("_Z11sgemm_tiledILi328EvPKfS1_Pfi"), "_Z11sgemm_tiledILi328EvPKfS1_Pfi");
  });

  it("ncu source page: a block whose File Path row is lost is an error, not lines counted into the previous file", async () => {
    const text = readFileSync(join(__dirname, "../../fixtures/profile/rms-profile.source.csv"), "utf8").split(
      "\n",
    );
    const second = text.findIndex((l, i) => i > 0 && l.startsWith('"File Path"'));
    text.splice(second, 1);
    await assert.rejects(
      parseNcuSource({ text: text.join("\n") }),
      (e) => e instanceof NcuCsvError && /no "File Path" row/.test(e.message),
    );
  });

  it("nvidia-smi: a second DOCTYPE is a BAD_XML error, not a parser crash", () => {
    const xml = readFileSync(join(__dirname, "../../fixtures/profile/h200-nvidia-smi-q.xml"), "utf8").split(
      "\n",
    );
    xml.splice(1, 0, xml[1]!);
    assert.throws(
      () => parseNvidiaSmiXml(xml.join("\n")),
      (e) => e instanceof NvidiaSmiError && e.code === "BAD_XML",
    );
  });
});
