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

/** Errors from parsing or from ncu become one-line CLI errors (exit 1: bad input, 3: ncu). */
export function toCliError(e: unknown): unknown {
  if (e instanceof NcuCsvError) return new CliError(e.message, 1);
  if (e instanceof NcuError) return new CliError(e.message, 3);
  if (e instanceof BenchError) return new CliError(e.message, e.code === "MISSING" ? 3 : 1);
  if (e instanceof BuildProgramError) return new CliError(e.message, e.code === "NVCC_MISSING" ? 3 : 1);
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
        process.stdout.write(
          opts.json ? `${JSON.stringify(summary, null, 2)}\n` : `${formatSummary(summary.kernels)}\n`,
        );
      } catch (e) {
        throw toCliError(e);
      }
    });
  return ncu;
}
