// `cuda-kernel-dev ncu summarize FILE.csv|FILE.ncu-rep [--json] [--no-cache]`: one line (or JSON
// entry) per profiled launch, in report order, from an ncu details export or a report (via the ncu
// CLI), read again only when the summary kept beside it is out of date.
import { Command } from "commander";
import { BenchError } from "../bench/runBench";
import { BuildProgramError } from "../profile/buildProgram";
import { loadSummary } from "../profile/loadProfile";
import { NcuError } from "../profile/ncuCli";
import { NcuCsvError } from "../profile/ncuCsv";
import type { KernelSummary } from "../profile/ncuSummary";
import { CliError } from "./cliError";
import { EXIT } from "./exitCodes";

const pct = (v: number | null): string => (v === null ? "n/a" : `${v.toFixed(1)}%`);
const dim = (d: [number, number, number] | null): string => (d ? `(${d.join(",")})` : "?");

export function formatDuration(ns: number | null): string {
  if (ns === null) return "n/a";
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(3)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} us`;
  return `${ns.toFixed(0)} ns`;
}

export function formatSummary(kernels: KernelSummary[]): string {
  const out: string[] = [];
  for (const k of kernels) {
    out.push(`[${k.id}] ${k.kernel}`);
    out.push(
      `    grid ${dim(k.gridSize)} x block ${dim(k.blockSize)}, ${k.registersPerThread ?? "?"} regs | ${formatDuration(k.durationNs)} | memory ${pct(k.memoryThroughputPct)} compute ${pct(k.computeThroughputPct)} | occupancy ${pct(k.achievedOccupancyPct)} of ${pct(k.theoreticalOccupancyPct)}`,
    );
    const top = [...k.findings]
      .filter((f) => f.estimatedSpeedupPct !== null)
      .sort((a, b) => b.estimatedSpeedupPct! - a.estimatedSpeedupPct!);
    for (const f of top.slice(0, 3))
      out.push(`    ${f.type} ${f.rule}: est. speedup ${f.estimatedSpeedupPct!.toFixed(1)}%`);
  }
  return out.join("\n");
}

/** A BenchError's exit code (README, "Exit codes"): a bad spec is usage, a missing tool 3, a compile error 4. */
export const BENCH_EXIT: Record<string, number> = {
  BAD_SPEC: EXIT.usage,
  NO_SPEC: EXIT.usage,
  NO_KERNEL: EXIT.usage,
  MISSING: EXIT.tool,
  COMPILE: EXIT.compile,
  SYMBOL: EXIT.compile,
  CANCELLED: EXIT.cancelled,
};

const BUILD_EXIT: Record<BuildProgramError["code"], number> = {
  NO_MAIN: EXIT.usage,
  NVCC_MISSING: EXIT.tool,
  COMPILE: EXIT.compile,
};

/** Errors from parsing, ncu, the harness or the build become one-line CLI errors (README, "Exit codes"). */
export function toCliError(e: unknown): unknown {
  if (e instanceof NcuCsvError) return new CliError(e.message, EXIT.found);
  if (e instanceof NcuError) return new CliError(e.message, EXIT.tool);
  if (e instanceof BenchError) return new CliError(e.message, BENCH_EXIT[e.code] ?? EXIT.found);
  if (e instanceof BuildProgramError) return new CliError(e.message, BUILD_EXIT[e.code]);
  return e;
}

export function ncuCommand(): Command {
  const ncu = new Command("ncu").description("Nsight Compute reports and CSV exports.");
  ncu
    .command("summarize")
    .description("Summarize each profiled launch of an ncu details CSV export or a .ncu-rep report.")
    .argument("<file>", "FILE.csv (ncu --csv --page details) or FILE.ncu-rep")
    .option("--json", "print {kernels: [...]} as JSON")
    .option("--ncu <path>", "the ncu executable, for .ncu-rep files", "ncu")
    .option("--no-cache", "read the report even when the summary kept beside it is current, and keep none")
    .action(async (file: string, opts: { json?: boolean; ncu: string; cache: boolean }) => {
      try {
        const summary = await loadSummary(file, opts.ncu, undefined, { cache: opts.cache });
        if (summary.kernels.length === 0) throw new CliError(`${file}: no kernels in report`, EXIT.found);
        process.stdout.write(
          opts.json ? `${JSON.stringify(summary, null, 2)}\n` : `${formatSummary(summary.kernels)}\n`,
        );
      } catch (e) {
        throw toCliError(e);
      }
    });
  return ncu;
}
