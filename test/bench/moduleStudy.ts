// Study (GPU machine, run by hand: node dist/gpu-tests/moduleStudy.js; not part of bench:gpu): with a
// small kernel's buffers already taken in turn (bufferSets.ts), does the event time still depend on
// the process through where the module's code landed? Each of PROCESSES processes loads the same
// cubin MODULES times and times the empty kernel and vector add n=65,536 (over 16 buffer sets in turn)
// from each load, interleaved over ROUNDS rounds, as benchmark.ts times (L2 flush, blocking kernel,
// events). Prints each load's figures, the spread over loads within a process and across processes.
// H100 (issue 13): the loads made no difference (sd 0-6 ns within a process); across processes the
// empty kernel moved 2.94-3.17 µs (sd 73 ns) and vector add with it: its mid-mean less the empty
// kernel's had an sd of 30 ns across processes, its median less the empty kernel's 67 ns (medians
// snap to the events' 32 ns ticks). Hence the offset takes the empty kernel's mid-mean.
import { spawnSync } from "node:child_process";
import { median } from "../../server/profile/calibrate";
import { compileStudyKernels, mean, N, openDevice, sd, us, vaddSets } from "./studyKernels";
import { allowLaunches } from "../support/launches";

allowLaunches();

/** One load's figures of the empty kernel and the vector add (ns). */
interface Load {
  emptyMedian: number;
  emptyMean: number;
  vaddMedian: number;
  vaddMean: number;
}

const PROCESSES = 5;
const MODULES = 6;
const SETS = 16;
const ROUNDS = 3;
const K = 64;

function child(cubin: string): void {
  const cuda = openDevice();
  const mods = Array.from({ length: MODULES }, () => cuda.loadModule(cubin));
  const fns = mods.map((m) => ({ vadd: cuda.getFunction(m, "vadd"), empty: cuda.getFunction(m, "empty_k") }));
  const fb = Math.max(2 * cuda.deviceAttributes(0).l2CacheBytes, 32 << 20);
  const flush = { ptr: cuda.memAlloc(fb), bytes: fb };
  const sets = vaddSets(cuda, SETS, false).map((s) => s.args);
  const one: [number, number, number] = [1, 1, 1];
  const empty = fns.map(() => [] as number[]);
  const vadd = fns.map(() => [] as number[]);
  for (let r = 0; r < ROUNDS; r++)
    fns.forEach((f, m) => {
      for (let i = 0; i < K; i++)
        empty[m]!.push(cuda.timedLaunch({ fn: f.empty, grid: one, block: one, args: [], flush }).ms * 1e6);
      for (let i = 0; i < 2 * K; i++) {
        const args = sets[i % SETS]!;
        const s = cuda.timedLaunch({ fn: f.vadd, grid: [N / 256, 1, 1], block: [256, 1, 1], args, flush });
        if (r > 0 || i >= SETS) vadd[m]!.push(s.ms * 1e6);
      }
    });
  const loads: Load[] = fns.map((_, m) => ({
    emptyMedian: median(empty[m]!),
    emptyMean: mean(empty[m]!),
    vaddMedian: median(vadd[m]!),
    vaddMean: mean(vadd[m]!),
  }));
  console.log(JSON.stringify(loads));
}

function main(): void {
  const { cubin } = compileStudyKernels("ckd-modules-");
  const procs: Load[][] = [];
  for (let p = 0; p < PROCESSES; p++) {
    const r = spawnSync(process.execPath, [__filename, "--child", cubin], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(r.stderr);
    procs.push(JSON.parse(r.stdout.trim().split("\n").at(-1)!) as Load[]);
  }
  console.log(`${PROCESSES} processes × ${MODULES} loads of one cubin; µs; vadd over ${SETS} buffer sets`);
  console.table(
    procs.map((loads, p) => ({
      process: p + 1,
      "empty medians": loads.map((l) => us(l.emptyMedian)).join(" "),
      "empty means": loads.map((l) => us(l.emptyMean)).join(" "),
      "vadd medians": loads.map((l) => us(l.vaddMedian)).join(" "),
      "vadd − empty (means)": loads.map((l) => us(l.vaddMean - l.emptyMean)).join(" "),
    })),
  );
  const stat = (name: string, f: (l: Load) => number) => {
    const within = mean(procs.map((loads) => sd(loads.map(f))));
    const first = sd(procs.map((loads) => f(loads[0]!)));
    const pooled = sd(procs.map((loads) => mean(loads.map(f))));
    console.log(
      `${name}: sd over loads within a process ${us(within)}; across processes: first load ${us(first)}, mean over loads ${us(pooled)}`,
    );
  };
  stat("empty median", (l) => l.emptyMedian);
  stat("empty mean", (l) => l.emptyMean);
  stat("vadd median", (l) => l.vaddMedian);
  stat("vadd mean", (l) => l.vaddMean);
  stat("vadd median − empty median", (l) => l.vaddMedian - l.emptyMedian);
  stat("vadd mean − empty mean", (l) => l.vaddMean - l.emptyMean);
}

const [mode, arg] = process.argv.slice(2);
if (mode === "--child") child(arg!);
else main();
