import { describe, it, before } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseNcuCsv, type NcuDetailsLaunch, type NcuRawLaunch } from "../../../server/profile/ncuCsv";
import { compareViews, profileView, type ProfileView } from "../../../server/profile/profileView";

const FIX = join(__dirname, "../../fixtures/profile");

describe("profile panel model (real H200 details + raw pages)", () => {
  let scalar: ProfileView;
  let vec: ProfileView;
  before(async () => {
    const d = (await parseNcuCsv({ path: join(FIX, "small.details.csv") })).launches as NcuDetailsLaunch[];
    const r = (await parseNcuCsv({ path: join(FIX, "h200-rmsnorm-full.raw.csv") }))
      .launches as NcuRawLaunch[];
    const raw = new Map(r.map((l) => [l.id, l]));
    scalar = profileView(d[0]!, raw.get(0));
    vec = profileView(d[2]!, raw.get(55));
  });

  it("header: device from the raw page, shared memory in bytes, clocks in Hz", () => {
    assert.equal(scalar.header.device, "NVIDIA H200");
    assert.equal(scalar.header.staticSharedBytes, 128);
    assert.equal(scalar.header.driverSharedBytes, 1020); // "1.02" Kbyte/block
    assert.equal(scalar.header.smFrequencyHz, 1.48e9);
    assert.equal(scalar.header.smCount, 132);
  });

  it("occupancy: the block limit with the fewest blocks is the limiter", () => {
    assert.deepEqual(scalar.occupancy.limiters, ["warps"]); // 8 blocks of 256 threads = 64 warps
    assert.equal(scalar.occupancy.limits.find((l) => l.limit === "registers")?.blocks, 16);
    assert.equal(vec.occupancy.limits.find((l) => l.limit === "registers")?.blocks, 10); // 20 regs
  });

  it("warp stalls from the raw page, largest first (long scoreboard for a load loop)", () => {
    assert.equal(scalar.stalls?.kind, "cycles per issued instruction");
    assert.equal(scalar.stalls?.reasons[0]?.reason, "long_scoreboard");
    assert.ok(Math.abs(scalar.stalls.reasons[0].value - 17.961891) < 1e-9);
  });

  it("roofline: FP32 achieved vs peak and DRAM bandwidth vs peak, as ncu computes them", () => {
    const fp32 = scalar.roofline?.find((p) => p.precision === "fp32");
    assert.ok(fp32);
    // 2 * 16896 FMA/cycle * 1.476711 GHz; 1.504 KB/cycle * 3.197505 GHz
    assert.ok(Math.abs(fp32.peakFlops - 2 * 16896 * 1.476711e9) < 1e3);
    assert.ok(Math.abs(fp32.peakDramBytesPerS - 1504 * 3.197505e9) < 1e3);
    assert.ok(Math.abs(fp32.achievedFlops - (123.639842 + 447.902825 + 2 * 317.264501) * 1.476711e9) < 1e3);
    assert.equal(fp32.dramBytesPerS, 1.074624e12);
  });

  it("findings sorted by estimated speedup, unestimated last", () => {
    const s = scalar.findings.map((f) => f.estimatedSpeedupPct);
    const estimated = s.filter((x): x is number => x !== null);
    assert.deepEqual(
      estimated,
      [...estimated].sort((a, b) => b - a),
    );
    assert.equal(s.at(-1), null);
  });

  it("compare: per-metric deltas of B against A, in base units", () => {
    const deltas = compareViews(scalar, vec);
    const dur = deltas.find((d) => d.section === "GPU Speed Of Light Throughput" && d.name === "Duration")!;
    assert.equal(dur.unit, "ns");
    assert.equal(dur.a, scalar.durationNs);
    assert.equal(dur.b, vec.durationNs);
    assert.ok(dur.deltaPct! < -30, `vec is faster: ${dur.deltaPct}`);
    // Text metrics are not compared.
    assert.ok(!deltas.some((d) => d.name === "Cluster Scheduling Policy"));
  });
});
