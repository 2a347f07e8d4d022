// Hostile fields in ncu CSV exports (issue 26, item 1, "the same for ncu reports"): the reader runs
// in the extension host and the CLI, so each of its patterns must take time linear in the field.
// Three did not: a metric value of digits and one letter, a dim3 of spaces (both in every details
// row) and a source-page column named "stall" over and over. On unchanged code a 100 KB field took
// 50 s, 23 s and ~11 s; these fields are 1 MB, hours before (the tests hung). The error quotes 80
// characters of such a field, not all of it.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parseDim3, parseNcuCsv } from "../../../server/profile/ncuCsv";
import { parseNcuSource } from "../../../server/profile/ncuSource";
import { summarizeNcuCsv } from "../../../server/profile/ncuSummary";
import { parseNcuNumber } from "../../../server/profile/units";

const FIX = join(__dirname, "../../fixtures/profile");
const MB = 1_000_000;
const [HEADER, ROW] = readFileSync(join(FIX, "small.details.csv"), "utf8").split("\n") as [string, string];

/** The export's header and first row with FROM (quoted) replaced by TO. */
const details = (from: string, to: string): string => `${HEADER}\n${ROW.replace(`"${from}"`, `"${to}"`)}\n`;

describe("ncu CSV: hostile fields take linear time", () => {
  it("a metric value of a million digits and a letter: not a number, quoted in 80 characters", async () => {
    const text = details("3.20", `${"1".repeat(MB)}x`);
    const said =
      /line 2: .*DRAM Frequency: value "1{79}… \(1,000,001 characters\)" with unit "Ghz" is not a number$/;
    await assert.rejects(parseNcuCsv({ text }), said);
    await assert.rejects(summarizeNcuCsv({ text }), said);
    assert.equal(parseNcuNumber(`${"1".repeat(MB)}.5e`), undefined);
    assert.equal(parseNcuNumber(`-${"1".repeat(300)}.5e+2`), -Number(`${"1".repeat(300)}.5e+2`));
  });

  it("a block size of a million spaces: not a dim3", async () => {
    const text = details("(256, 1, 1)", `(${" ".repeat(MB)})`);
    await assert.rejects(
      parseNcuCsv({ text }),
      /line 2: Block Size "\( {78}… \(1,000,002 characters\)" is not a dim3$/,
    );
    assert.deepEqual(parseDim3("( 256 ,  1,1 )"), [256, 1, 1]);
    assert.deepEqual(parseDim3(`${" ".repeat(MB)}7`), [7, 1, 1], "spaces around a bare size are trimmed");
    assert.equal(parseDim3(`${" ".repeat(MB)}x`), null);
  });

  it('a source-page column of "stall" repeated: not a stall reason; "... stall ... (samples)" still is', async () => {
    const page = readFileSync(join(FIX, "rms-profile.source.csv"), "utf8");
    const notIssued = '"Warp Stall Sampling (Not-issued Samples)"';
    const hostile = await parseNcuSource({
      text: page.replaceAll(notIssued, `"${"stall".repeat(MB / 5)}x"`),
    });
    const rms = (r: typeof hostile) => r.files[1]!.lines.find((l) => l.line === 38)!;
    assert.equal(rms(hostile).samples, 1480);
    assert.deepEqual(rms(hostile).stalls, []);
    const renamed = await parseNcuSource({
      text: page.replaceAll(notIssued, '"Stall Not Selected (samples)"'),
    });
    assert.deepEqual(rms(renamed).stalls, [{ reason: "Stall Not Selected (samples)", samples: 1170 }]);
  });
});
