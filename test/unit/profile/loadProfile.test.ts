import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadProfile, loadSummary, pagePaths } from "../../../server/profile/loadProfile";
import { NcuError } from "../../../server/profile/ncuCli";
import { parseNcuCsv, type NcuDetailsLaunch } from "../../../server/profile/ncuCsv";
import { parseNcuSource } from "../../../server/profile/ncuSource";
import { summarize } from "../../../server/profile/ncuSummary";
import { tempDir } from "../../support/tempDir";
import { allowLaunches } from "../../support/launches";

allowLaunches();

const FIX = join(__dirname, "../../fixtures/profile");

describe("opening a profile", () => {
  it("a NAME.details.csv picks up its NAME.source.csv sibling (and no raw page when there is none)", async () => {
    const p = await loadProfile(join(FIX, "rms-profile.details.csv"), "ncu");
    assert.equal(p.details.length, 3);
    assert.equal(p.raw, null);
    assert.equal(p.source?.files[1]?.totalSamples, 3180);
  });

  it("the source page can be left until asked for: loadSource() reads it once, the same as at load", async () => {
    const details = join(FIX, "rms-profile.details.csv");
    const eager = await loadProfile(details, "ncu");
    assert.equal(await eager.loadSource(), eager.source);
    const lazy = await loadProfile(details, "ncu", undefined, undefined, { source: "lazy" });
    assert.equal(lazy.source, null);
    assert.equal(lazy.details.length, 3);
    const first = lazy.loadSource();
    assert.equal(lazy.loadSource(), first);
    assert.deepEqual(await first, eager.source);
  });

  it("a lazy source page that is not there is null, not an error", async () => {
    const p = await loadProfile(join(FIX, "h200-rmsnorm-full.details.csv"), "ncu", undefined, undefined, {
      source: "lazy",
    });
    assert.equal(await p.loadSource(), null);
  });

  it("a lazy .ncu-rep still needs ncu for its details: without it, a NOT_FOUND error", async () => {
    await assert.rejects(
      loadProfile(join(FIX, "h100/rms-vec-basic.ncu-rep"), "/nonexistent/ncu", undefined, undefined, {
        source: "lazy",
      }),
      (e: unknown) => e instanceof NcuError && e.code === "NOT_FOUND",
    );
  });

  it("the real H200 details export picks up its raw sibling", async () => {
    const p = await loadProfile(join(FIX, "h200-rmsnorm-full.details.csv"), "ncu");
    assert.equal(p.details.length, 110);
    assert.equal(p.raw?.length, 110);
  });

  it("a raw page opened as the details page says which page to open", async () => {
    await assert.rejects(
      loadProfile(join(FIX, "h200-rmsnorm-full.raw.csv"), "ncu"),
      /raw page export; open the details page/,
    );
  });

  it("a .ncu-rep needs ncu: without it, a NOT_FOUND error", async () => {
    await assert.rejects(
      loadProfile(join(FIX, "h100/rms-vec-basic.ncu-rep"), "/nonexistent/ncu"),
      (e: unknown) => e instanceof NcuError && e.code === "NOT_FOUND",
    );
  });

  it("a report's pages are kept beside it by name", () => {
    assert.deepEqual(pagePaths("/p/r.ncu-rep"), {
      details: "/p/r.details.csv",
      raw: "/p/r.raw.csv",
      source: "/p/r.source.csv",
    });
  });
});

const scratch: string[] = [];
after(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** A stand-in for ncu that prints the H100 fixture's page for `--page P` and notes which pages it was asked for. */
function fakeNcu(): { ncu: string; report: string; asked: () => string[] } {
  const dir = tempDir("fake-ncu-");
  scratch.push(dir);
  const ncu = join(dir, "ncu");
  const log = join(dir, "asked.log");
  const pages = join(FIX, "h100", "rms-vec-basic");
  writeFileSync(
    ncu,
    `#!/bin/sh\npage=""\nwhile [ $# -gt 0 ]; do [ "$1" = "--page" ] && page=$2; shift; done\necho "$page" >> '${log}'\ncat '${pages}'."$page".csv\n`,
  );
  chmodSync(ncu, 0o755);
  const report = join(dir, "r.ncu-rep");
  writeFileSync(report, "a report");
  writeFileSync(log, "");
  return { ncu, report, asked: () => readFileSync(log, "utf8").split("\n").filter(Boolean) };
}

describe("pages of a .ncu-rep read only when shown", () => {
  const page = (p: string): string => join(FIX, "h100", `rms-vec-basic.${p}.csv`);

  it("eager (the default): all three pages are exported and read at load, as before", async () => {
    const f = fakeNcu();
    const p = await loadProfile(f.report, f.ncu);
    assert.deepEqual(f.asked(), ["details", "raw", "source"]);
    assert.deepEqual(p.source, await parseNcuSource({ path: page("source") }));
  });

  it("lazy: the source page is exported only when loadSource() asks", async () => {
    const f = fakeNcu();
    const p = await loadProfile(f.report, f.ncu, undefined, undefined, { source: "lazy" });
    assert.deepEqual(f.asked(), ["details", "raw"]);
    assert.equal(p.source, null);
    assert.deepEqual(await p.loadSource(), await parseNcuSource({ path: page("source") }));
    await p.loadSource();
    assert.deepEqual(f.asked(), ["details", "raw", "source"]);
  });

  it("the summary exports the details page alone, and the next time asks ncu for nothing", async () => {
    const f = fakeNcu();
    const expected = summarize(
      ((await parseNcuCsv({ path: page("details") })) as { launches: NcuDetailsLaunch[] }).launches,
    );
    assert.deepEqual(await loadSummary(f.report, f.ncu), expected);
    assert.deepEqual(f.asked(), ["details"]);
    assert.deepEqual(await loadSummary(f.report, f.ncu), expected);
    assert.deepEqual(f.asked(), ["details"]);
  });
});
