// `npm run fuzz -- [cases per target] [first seed]`: the parser fuzz of test/unit/fuzz at length.
// Prints, per parser, how many mutated inputs parsed, how many gave a clear error, and every
// violation (a crash, or a number that changed though its lines were not touched) with its seed,
// which replays with `npm run fuzz -- 1 SEED`. Exits 1 when there is any violation.
import { runCase } from "../unit/fuzz/oracle";
import { allTargets } from "../unit/fuzz/targets";

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 5000);
  const first = Number(process.argv[3] ?? 1);
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(first)) {
    console.error("usage: npm run fuzz -- [cases per target >= 1] [first seed]");
    process.exit(2);
  }
  let violations = 0;
  for (const t of await allTargets()) {
    const tally = { parsed: 0, "clear-error": 0, violation: 0 };
    const t0 = performance.now();
    for (let seed = first; seed < first + count; seed++) {
      const o = await runCase(t, seed);
      tally[o.kind]++;
      if (o.detail) console.log(`  VIOLATION ${o.detail.split("\n").slice(0, 4).join(" | ")}`);
    }
    violations += tally.violation;
    const ms = performance.now() - t0;
    console.log(
      `${t.name.padEnd(72)} ${String(tally.parsed).padStart(6)} parsed ${String(tally["clear-error"]).padStart(6)} clear errors ${String(tally.violation).padStart(4)} violations  ${(ms / count).toFixed(2)} ms/case`,
    );
  }
  console.log(violations === 0 ? "no violations" : `${violations} violations`);
  process.exitCode = violations === 0 ? 0 : 1;
}

void main();
