import { after, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, copyFileSync, existsSync, mkdirSync } from "node:fs";
import { readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadSummary } from "../../../server/profile/loadProfile";
import { parseNcuCsv, type NcuDetailsLaunch } from "../../../server/profile/ncuCsv";
import { summarize } from "../../../server/profile/ncuSummary";
import { SUMMARY_CACHE_VERSION, summaryCachePath } from "../../../server/profile/summaryCache";
import { makeReadOnly } from "../../support/readOnly";
import { tempDir } from "../../support/tempDir";

const FIX = join(__dirname, "../../fixtures/profile");

/** A cache file saying `marker` for the report as it is now: served only while the report is unchanged. */
function plantMarker(report: string, version = SUMMARY_CACHE_VERSION): void {
  const s = statSync(report, { bigint: true });
  // One launch, stored as summaryCodec writes it: [kernel, id, block, grid, six figures, findings].
  const value = { strings: ["from the cache"], kernels: [[0, 999, null, null, 1, 2, 3, 4, 5, 6, []]] };
  writeFileSync(
    summaryCachePath(report),
    JSON.stringify({ version, size: s.size.toString(), mtimeNs: s.mtimeNs.toString(), value }),
  );
}

const fromCache = (s: { kernels: { kernel: string }[] }): boolean =>
  s.kernels[0]?.kernel === "from the cache";

const scratch: string[] = [];
after(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** A fresh copy of small.details.csv in a folder of its own, and its summary read without a cache. */
let report: string;
let expected: ReturnType<typeof summarize>;
async function freshReport(): Promise<void> {
  const dir = tempDir("ncu-cache-");
  scratch.push(dir);
  report = join(dir, "r.details.csv");
  copyFileSync(join(FIX, "small.details.csv"), report);
  expected ??= summarize(
    ((await parseNcuCsv({ path: report })) as { launches: NcuDetailsLaunch[] }).launches,
  );
}

describe("the summary kept beside a report: served only while it is the report's", () => {
  beforeEach(freshReport);

  it("is written on the first read, under .cuda-kernel-dev/ beside the report, and served after", async () => {
    assert.deepEqual(await loadSummary(report, "ncu"), expected);
    const file = summaryCachePath(report);
    assert.equal(file, join(report, "..", ".cuda-kernel-dev", "ncu-cache", "r.details.csv.summary.json"));
    assert.ok(existsSync(file));
    const cached = await loadSummary(report, "ncu");
    // Same value, same field order: `--json` prints a cached summary byte for byte as a fresh one.
    assert.equal(JSON.stringify(cached), JSON.stringify(expected));
    assert.ok(readFileSync(file).length < JSON.stringify(expected).length, "stored compactly");
    plantMarker(report);
    assert.ok(fromCache(await loadSummary(report, "ncu")));
  });

  it("is never served once the report changed: new contents, or only a new modification time", async () => {
    await loadSummary(report, "ncu");
    plantMarker(report);
    appendFileSync(report, "\n");
    assert.deepEqual(await loadSummary(report, "ncu"), expected);
    plantMarker(report);
    const later = new Date(statSync(report).mtimeMs + 1500);
    utimesSync(report, later, later); // `touch`: same size, same bytes
    assert.deepEqual(await loadSummary(report, "ncu"), expected);
  });

  it("from another parser version is not served", async () => {
    await loadSummary(report, "ncu");
    plantMarker(report, SUMMARY_CACHE_VERSION - 1);
    assert.deepEqual(await loadSummary(report, "ncu"), expected);
  });
});

describe("the summary kept beside a report: passed over when it cannot serve", () => {
  beforeEach(freshReport);

  it("damaged (not JSON, or JSON of the wrong shape) is passed over and replaced", async () => {
    await loadSummary(report, "ncu");
    const file = summaryCachePath(report);
    const s = statSync(report, { bigint: true });
    const key = `"version": ${SUMMARY_CACHE_VERSION}, "size": "${s.size}", "mtimeNs": "${s.mtimeNs}"`;
    const junks = [
      '{"version": 1, "size"',
      "[]",
      "\u0000\u0001",
      `{${key}, "value": {"kernels": 3}}`,
      `{${key}, "value": {"strings": [], "kernels": [[0, 1, null, null, 1, 2, 3, 4, 5, 6, []]]}}`,
      `{${key}, "value": {"strings": ["k"], "kernels": [[0, 1, [1, 2], null, 1, 2, 3, 4, 5, 6, []]]}}`,
      `{${key}, "value": {"strings": ["k"], "kernels": [[0, 1, null, null, 1, 2, 3, 4, 5, "6", []]]}}`,
      `{${key}, "value": {"strings": ["k"], "kernels": [[0, 1, null, null, 1, 2, 3, 4, 5, 6, [[0, 0, 1, 7]]]]}}`,
    ];
    for (const junk of junks) {
      writeFileSync(file, junk);
      assert.deepEqual(await loadSummary(report, "ncu"), expected, junk);
      assert.equal(
        (JSON.parse(readFileSync(file, "utf8")) as { version: number }).version,
        SUMMARY_CACHE_VERSION,
      );
    }
  });

  it("cannot be written (its folder is a file, or a folder stands where the file goes): the summary still comes", async () => {
    const blocked = join(report, "..", ".cuda-kernel-dev");
    writeFileSync(blocked, "in the way");
    assert.deepEqual(await loadSummary(report, "ncu"), expected);
    assert.equal(readFileSync(blocked, "utf8"), "in the way");
    rmSync(blocked);
    mkdirSync(summaryCachePath(report), { recursive: true });
    assert.deepEqual(await loadSummary(report, "ncu"), expected);
    assert.ok(statSync(summaryCachePath(report)).isDirectory());
  });

  it("cannot be written in a read-only folder (as root too: made immutable)", async () => {
    const undo = await makeReadOnly(join(report, ".."));
    try {
      assert.deepEqual(await loadSummary(report, "ncu"), expected);
      assert.ok(!existsSync(summaryCachePath(report)));
    } finally {
      await undo();
    }
  });

  it("is neither read nor written with cache: false", async () => {
    assert.deepEqual(await loadSummary(report, "ncu", undefined, { cache: false }), expected);
    assert.ok(!existsSync(summaryCachePath(report)));
    await loadSummary(report, "ncu");
    plantMarker(report);
    assert.deepEqual(await loadSummary(report, "ncu", undefined, { cache: false }), expected);
  });

  it("is not kept for a damaged report: the error comes every time", async () => {
    copyFileSync(join(FIX, "damaged-unit-unknown.csv"), report);
    await assert.rejects(loadSummary(report, "ncu"), /unknown unit "furlong"/);
    assert.ok(!existsSync(summaryCachePath(report)));
    await assert.rejects(loadSummary(report, "ncu"), /unknown unit "furlong"/);
  });
});
