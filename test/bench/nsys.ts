// `npm run bench:nsys`: how long `nsys summarize` takes on a report of >= 100,000 kernel launches,
// and the memory it holds. The real 101,007-launch H100 export (test/gpu/nsys/capture.sh, 16 MB) is
// too large for git, so this builds one of the same shape on the real schema: 1,000 NVTX "step"
// ranges of 101 launches each (test/unit/profile/nsysSynth.ts). Prints figures; asserts nothing.
import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { summarizeSqlite } from "../../server/profile/nsysReportSummary";
import { addSteps, SynthExport } from "../unit/profile/nsysSynth";

const RUNS = 5;
const STEPS = Number(process.env.STEPS ?? 1000);
const LAUNCHES = Number(process.env.LAUNCHES ?? 101);

async function main(): Promise<void> {
  let t0 = performance.now();
  const x = await SynthExport.create();
  addSteps(x, STEPS, LAUNCHES);
  const file = join(mkdtempSync(join(tmpdir(), "ckd-nsys-bench-")), "launches.sqlite");
  writeFileSync(file, x.bytes());
  x.db.close();
  console.log(
    `built ${file}: ${STEPS * LAUNCHES} launches in ${STEPS} ranges, ${(statSync(file).size / 1e6).toFixed(1)} MB, ${(performance.now() - t0).toFixed(0)} ms`,
  );
  const ms: number[] = [];
  let rss = 0;
  for (let i = 0; i <= RUNS; i++) {
    t0 = performance.now();
    const s = await summarizeSqlite(file);
    const took = performance.now() - t0;
    rss = Math.max(rss, process.memoryUsage().rss);
    if (i === 0) {
      const step = s.nvtx[0]!;
      console.log(
        `first run (loads sql.js): ${took.toFixed(0)} ms; ${s.kernelCount} kernels, ${step.name} x${step.time.instances}: ${step.launches.avg} launches each`,
      );
    } else ms.push(took);
  }
  ms.sort((a, b) => a - b);
  console.log(
    `summarize: median ${ms[RUNS >> 1]!.toFixed(0)} ms, min ${ms[0]!.toFixed(0)} ms, max ${ms.at(-1)!.toFixed(0)} ms (${RUNS} runs); max RSS ${(rss / 1e6).toFixed(0)} MB`,
  );
}

void main();
