// Study (GPU machine, run by hand: node dist/gpu-tests/placementStudy.js; not part of bench:gpu): does
// a small kernel's time depend on where its buffers landed? Each of PROCESSES processes (the addon
// directly, timed as benchmark.ts times: L2 flush, blocking kernel, events) allocates SETS buffer sets
// for vector add n=65,536, with random spacers between them, and times every set against two flush
// buffers, interleaved over ROUNDS rounds; also the empty kernel and the SM clock (clock64 over
// globaltimer). NCU processes time the same sets under ncu. Prints the spread within a process (over
// sets) and across processes, and Δ against ncu for every pairing of processes.
// H100 (issue 13): one set's median ranged 3.84-4.16 µs over the sets of one process (sd 15-83 ns),
// the same set within 3-16 ns from round to round; the flush buffer made no difference (≤ 12 ns); the
// clock stayed at 1980 MHz. ncu's sets spread less (sd 15-39 ns) and its mean over sets moved 9 ns
// between processes. Δ against ncu: −6.6%..+0.2% (sd 2.0%) from one set, −4.0%..−0.3% (sd 1.2%) from
// the mean over the sets. Hence benchmark.ts times a small kernel over several sets (bufferSets.ts).
import { execFileSync, spawnSync } from "node:child_process";
import { join } from "node:path";
import type { CudaAddon, FunctionHandle } from "../../native/addon";
import { packPointer } from "../../native/runner/hostData";
import { midMean } from "../../native/runner/stats";
import { median } from "../../server/profile/calibrate";
import { ncuPath, reportDurations } from "./ncuCases";
import { compileStudyKernels, mean, N, openDevice, sd, us, vaddSets } from "./studyKernels";
import { allowLaunches } from "../support/launches";

allowLaunches();

const PROCESSES = 6;
const NCU = 3;
const SETS = 12;
const ROUNDS = 4;
const K = 50;
const NCU_LAUNCHES = 10;

interface Env {
  cuda: CudaAddon;
  vadd: FunctionHandle;
  empty: FunctionHandle;
  probe: FunctionHandle;
}

function open(cubin: string): Env {
  const cuda = openDevice();
  const mod = cuda.loadModule(cubin);
  const f = (s: string) => cuda.getFunction(mod, s);
  return { cuda, vadd: f("vadd"), empty: f("empty_k"), probe: f("clockprobe") };
}

function clockMHz(e: Env): number {
  const out = e.cuda.memAlloc(16);
  e.cuda.launch({ fn: e.probe, grid: [1, 1, 1], block: [1, 1, 1], args: [packPointer(out)] });
  e.cuda.synchronize();
  const b = e.cuda.memcpyDtoH(out, 16);
  e.cuda.memFree(out);
  return (Number(b.readBigUInt64LE(0)) / Number(b.readBigUInt64LE(8))) * 1e3;
}

function runnerChild(cubin: string): void {
  const e = open(cubin);
  const l2 = e.cuda.deviceAttributes(0).l2CacheBytes;
  const fb = Math.max(2 * l2, 32 << 20);
  const flushes = [{ ptr: e.cuda.memAlloc(fb), bytes: fb }];
  const sets = vaddSets(e.cuda, SETS, true);
  flushes.push({ ptr: e.cuda.memAlloc(fb), bytes: fb });
  const grid: [number, number, number] = [N / 256, 1, 1];
  const sample = (fn: FunctionHandle, args: Uint8Array[], f: number) =>
    e.cuda.timedLaunch({ fn, grid, block: [256, 1, 1], args, flush: flushes[f]! }).ms * 1e6;
  const t = sets.map(() => flushes.map(() => [] as number[][]));
  const empty: number[] = [];
  const mhz = [clockMHz(e)];
  for (let i = 0; i < 20; i++) sample(e.vadd, sets[0]!.args, 0);
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < K; i++)
      empty.push(
        e.cuda.timedLaunch({ fn: e.empty, grid: [1, 1, 1], block: [1, 1, 1], args: [], flush: flushes[0]! })
          .ms * 1e6,
      );
    sets.forEach((s, si) =>
      flushes.forEach((_, f) => t[si]![f]!.push(Array.from({ length: K }, () => sample(e.vadd, s.args, f)))),
    );
    mhz.push(clockMHz(e));
  }
  console.log(
    JSON.stringify({
      empty: median(empty),
      mhz,
      addr: sets.map((s) => s.addr),
      // [set][flush][round] medians
      med: t.map((fl) => fl.map((rounds) => rounds.map((x) => median(x)))),
    }),
  );
}

function ncuChild(cubin: string): void {
  const e = open(cubin);
  for (let i = 0; i < NCU_LAUNCHES; i++) {
    e.cuda.launch({ fn: e.empty, grid: [1, 1, 1], block: [1, 1, 1], args: [] });
    e.cuda.synchronize();
  }
  for (const s of vaddSets(e.cuda, SETS, true))
    for (let i = 0; i < NCU_LAUNCHES; i++) {
      e.cuda.launch({ fn: e.vadd, grid: [N / 256, 1, 1], block: [256, 1, 1], args: s.args });
      e.cuda.synchronize();
    }
}

const span = (x: readonly number[]) => `${us(Math.min(...x))}-${us(Math.max(...x))}`;

interface RunnerOut {
  empty: number;
  mhz: number[];
  addr: string[];
  med: number[][][];
}

interface NcuOut {
  empty: number;
  sets: number[];
}

/** ncu's empty kernel (mid-mean) and vadd medians per buffer set, from each of NCU processes. */
function ncuStudy(ncu: string, cubin: string, work: string): NcuOut[] {
  return Array.from({ length: NCU }, (_, j) => {
    const rep = join(work, `n${j}`);
    const metric = "gpu__time_duration.sum";
    execFileSync(
      ncu,
      [
        "--clock-control",
        "none",
        "--cache-control",
        "all",
        "--metrics",
        metric,
        "-k",
        "regex:^(vadd|empty_k)",
        "-f",
        "-o",
        rep,
        process.execPath,
        __filename,
        "--ncu",
        cubin,
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    const v = reportDurations(ncu, rep, metric);
    const per = Array.from({ length: SETS + 1 }, (_, i) => v.slice(i * NCU_LAUNCHES, (i + 1) * NCU_LAUNCHES));
    return { empty: midMean([...per[0]!].sort((a, b) => a - b)), sets: per.slice(1).map((x) => median(x)) };
  });
}

function main(): void {
  const { cubin, work } = compileStudyKernels("ckd-place-");
  const ncuRuns = ncuStudy(ncuPath()!, cubin, work);
  console.log(`ncu: ${NCU} processes × ${SETS} sets × ${NCU_LAUNCHES} launches (median per set)`);
  console.table(
    ncuRuns.map((n, j) => ({
      ncu: j + 1,
      "empty mid-mean": us(n.empty),
      "vadd set 1": us(n.sets[0]!),
      "sets mean": us(mean(n.sets)),
      "sets sd": us(sd(n.sets)),
      "sets span": span(n.sets),
      sets: n.sets.map(us).join(" "),
    })),
  );
  const kids: RunnerOut[] = [];
  for (let p = 0; p < PROCESSES; p++) {
    const r = spawnSync(process.execPath, [__filename, "--runner", cubin], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(r.stderr);
    kids.push(JSON.parse(r.stdout.trim().split("\n").at(-1)!) as RunnerOut);
  }
  const setMed = (k: RunnerOut, f: number) => k.med.map((fl) => median(fl[f]!));
  console.log(
    `runner: ${PROCESSES} processes × ${SETS} sets × 2 flush buffers × ${ROUNDS} rounds × ${K} samples (raw event medians)`,
  );
  console.table(
    kids.map((k, p) => {
      const s0 = setMed(k, 0);
      const s1 = setMed(k, 1);
      const roundSd = mean(k.med.map((fl) => sd(fl[0]!)));
      return {
        process: p + 1,
        empty: us(k.empty),
        MHz: k.mhz.map((m) => m.toFixed(0)).join(" "),
        "set 1": us(s0[0]!),
        "sets mean": us(mean(s0)),
        "sets sd": us(sd(s0)),
        "sets span": span(s0),
        "flush2 − flush1 mean": us(mean(s1) - mean(s0)),
        "round sd (same set)": us(roundSd),
        sets: s0.map(us).join(" "),
      };
    }),
  );
  kids
    .slice(0, 2)
    .forEach((k, p) =>
      console.log(`process ${p + 1} set addresses (low 32 bits, MiB): ${k.addr.join(" | ")}`),
    );
  const ncuSet1 = ncuRuns.map((n) => n.sets[0]!);
  const ncuMean = ncuRuns.map((n) => mean(n.sets));
  console.log(
    `across ncu processes: set 1 sd ${us(sd(ncuSet1))}, sets mean sd ${us(sd(ncuMean))}; within (mean sd over sets) ${us(mean(ncuRuns.map((n) => sd(n.sets))))}`,
  );
  const r1 = kids.map((k) => setMed(k, 0)[0]! - k.empty);
  const rm = kids.map((k) => mean(setMed(k, 0)) - k.empty);
  console.log(
    `across runner processes (less own empty): set 1 sd ${us(sd(r1))}, sets mean sd ${us(sd(rm))}; raw set 1 sd ${us(sd(kids.map((k) => setMed(k, 0)[0]!)))}, raw sets mean sd ${us(sd(kids.map((k) => mean(setMed(k, 0)))))}; within (mean sd over sets) ${us(mean(kids.map((k) => sd(setMed(k, 0)))))}`,
  );
  for (const [name, ours, theirs] of [
    ["set 1 vs ncu set 1", r1, ncuSet1],
    ["mean of sets vs ncu mean of sets", rm, ncuMean],
    ["mean of sets vs ncu set 1", rm, ncuSet1],
  ] as const) {
    const d = kids.flatMap((_, p) =>
      ncuRuns.map((n, q) => ((ours[p]! + n.empty - theirs[q]!) / theirs[q]!) * 100),
    );
    console.log(
      `Δ ${name} (offset: own empty − ncu's empty): ${Math.min(...d).toFixed(1)}% .. ${Math.max(...d).toFixed(1)}%, mean ${mean(d).toFixed(1)}%, sd ${sd(d).toFixed(1)}%`,
    );
  }
}

const [mode, arg] = process.argv.slice(2);
if (mode === "--runner") runnerChild(arg!);
else if (mode === "--ncu") ncuChild(arg!);
else main();
