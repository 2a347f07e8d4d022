// `npm run bench:ncu`: how long the streaming ncu CSV parser takes on the real 2.7 MB details export
// (110 launches, --set full) and the 2.1 MB raw export, next to csv-parse alone on the same bytes
// (the floor for any csv-parse based parser). Prints figures; asserts nothing.
import { createReadStream, statSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse";
import { parseNcuCsv } from "../../server/profile/ncuCsv";
import { summarize } from "../../server/profile/ncuSummary";
import type { NcuDetailsLaunch } from "../../server/profile/ncuCsv";

const FIX = join(__dirname, "../fixtures/profile");
const RUNS = 7;

async function csvParseOnly(path: string): Promise<void> {
  const p = createReadStream(path).pipe(parse({ relax_column_count: true }));
  for await (const _ of p) {
    // consume
  }
}

async function time(label: string, bytes: number, fn: () => Promise<unknown>): Promise<void> {
  await fn(); // warm-up: module loading and JIT
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  const median = ms[Math.floor(ms.length / 2)]!;
  const mbs = bytes / 1e6 / (median / 1e3);
  console.log(
    `${label.padEnd(44)} median ${median.toFixed(0).padStart(5)} ms  min ${ms[0]!.toFixed(0).padStart(5)} ms  max ${ms.at(-1)!.toFixed(0).padStart(5)} ms  (${mbs.toFixed(1)} MB/s, ${RUNS} runs)`,
  );
}

async function main(): Promise<void> {
  const details = join(FIX, "h200-rmsnorm-full.details.csv");
  const raw = join(FIX, "h200-rmsnorm-full.raw.csv");
  const dBytes = statSync(details).size;
  const rBytes = statSync(raw).size;
  console.log(`details export: ${(dBytes / 1e6).toFixed(2)} MB, raw export: ${(rBytes / 1e6).toFixed(2)} MB`);
  await time("details: parse + summarize (110 launches)", dBytes, async () =>
    summarize((await parseNcuCsv({ path: details })).launches as NcuDetailsLaunch[]),
  );
  await time("details: csv-parse alone (floor)", dBytes, () => csvParseOnly(details));
  await time("raw: parse (110 launches x 2227 columns)", rBytes, () => parseNcuCsv({ path: raw }));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
