import { describe, it, before } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseNcuCsv, type NcuDetailsLaunch, type NcuRawLaunch } from "../../../server/profile/ncuCsv";
import { compareViews, profileView, type ProfileView } from "../../../server/profile/profileView";

const FIX = join(__dirname, "../../fixtures/profile");

/** The views of launches 0 (rmsnorm_scalar) and 55 (rmsnorm_vec), and the raw page they used. */
async function load(): Promise<{ scalar: ProfileView; vec: ProfileView; raw: NcuRawLaunch[] }> {
  const d = (await parseNcuCsv({ path: join(FIX, "small.details.csv") })).launches as NcuDetailsLaunch[];
  const r = (await parseNcuCsv({ path: join(FIX, "h200-rmsnorm-full.raw.csv") })).launches as NcuRawLaunch[];
  const byId = new Map(r.map((l) => [l.id, l]));
  return { scalar: profileView(d[0]!, byId.get(0)), vec: profileView(d[2]!, byId.get(55)), raw: r };
}

describe("profile panel model (real H200 details + raw pages)", () => {
  let scalar: ProfileView;
  let vec: ProfileView;
  before(async () => {
    ({ scalar, vec } = await load());
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

describe("roofline (real H200 raw page)", () => {
  let scalar: ProfileView;
  let raw: NcuRawLaunch[];
  before(async () => {
    ({ scalar, raw } = await load());
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

  it("roofline FLOP counts agree with ncu's own derived _x2/_x4 metrics, half precision included", () => {
    const l = raw[0]!;
    const v = (n: string): number => l.metrics.get(n)!.value as number;
    const hz = v("smsp__cycles_elapsed.avg.per_second");
    const fp16 = scalar.roofline!.find((p) => p.precision === "fp16")!;
    const d = "derived__smsp__sass_thread_inst_executed_op_";
    const hAdd = v("smsp__sass_thread_inst_executed_op_hadd_pred_on.sum.per_cycle_elapsed");
    const hMul = v("smsp__sass_thread_inst_executed_op_hmul_pred_on.sum.per_cycle_elapsed");
    // ncu's derived metric = factor x the rate; our factors must match (x2 add, x2 mul, x4 fma).
    assert.ok(Math.abs(v(`${d}hadd_pred_on_x2`) - 2 * hAdd) < 1e-3);
    assert.ok(
      Math.abs(
        fp16.achievedFlops -
          (v(`${d}hadd_pred_on_x2`) + v(`${d}hmul_pred_on_x2`) + v(`${d}hfma_pred_on_x4`)) * hz,
      ) <
        1e3 + 1e-6 * fp16.achievedFlops,
      `${fp16.achievedFlops} ${hMul}`,
    );
    assert.ok(
      Math.abs(
        fp16.peakFlops -
          v("derived__sm__sass_thread_inst_executed_op_hfma_pred_on_x4") *
            v("sm__cycles_elapsed.avg.per_second"),
      ) < 1e3,
    );
    const fp32 = scalar.roofline!.find((p) => p.precision === "fp32")!;
    assert.ok(
      Math.abs(
        fp32.peakFlops -
          v("derived__sm__sass_thread_inst_executed_op_ffma_pred_on_x2") *
            v("sm__cycles_elapsed.avg.per_second"),
      ) < 1e3,
    );
  });
});
