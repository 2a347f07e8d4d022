import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadProfile, pagePaths } from "../../../server/profile/loadProfile";
import { NcuError } from "../../../server/profile/ncuCli";

const FIX = join(__dirname, "../../fixtures/profile");

describe("opening a profile", () => {
  it("a NAME.details.csv picks up its NAME.source.csv sibling (and no raw page when there is none)", async () => {
    const p = await loadProfile(join(FIX, "rms-profile.details.csv"), "ncu");
    assert.equal(p.details.length, 3);
    assert.equal(p.raw, null);
    assert.equal(p.source?.files[1]?.totalSamples, 3180);
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
