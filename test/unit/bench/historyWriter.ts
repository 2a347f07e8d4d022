// A separate process appending history entries, for the concurrency test: WORKSPACE COUNT ID.
import { appendHistory } from "../../../server/bench/history";
import type { HistoryEntry } from "../../../server/bench/results";

async function main(): Promise<void> {
  const [workspace, count, id] = process.argv.slice(2);
  for (let i = 0; i < Number(count); i++) {
    const entry: HistoryEntry = {
      schema: 1,
      time: new Date().toISOString(),
      file: "k.cu",
      kernel: `writer${id}`,
      instance: `writer${id}`,
      gpu: "NVIDIA H200",
      computeCapability: "9.0",
      driverVersion: 13000,
      smClockKHz: 1980000,
      memClockKHz: 3201000,
      // Long lines (~6 KB) make torn or interleaved writes show if appends were not atomic.
      points: Array.from({ length: 60 }, (_, k) => ({
        label: `n=${k} writer=${id} run=${i}`,
        medianNs: 1000 + k,
        gbPerSec: 123.456,
        pass: true,
      })),
    };
    await appendHistory(workspace!, entry);
  }
}
void main();
