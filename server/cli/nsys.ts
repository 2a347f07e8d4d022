// `cuda-kernel-dev nsys profile [options] -- COMMAND...` and `cuda-kernel-dev nsys summarize REPORT`:
// Nsight Systems reports from a terminal. The summary lists kernels and memory operations as
// `nsys stats` does, the GPU's idle share, and per NVTX range the launches inside each instance
// ("launches per step"). Exit codes: 1 damaged or foreign input (a report the reader refused or that
// ran past its time or memory budget), 2 usage, 3 nsys missing or failing, 130 Ctrl+C.
import { Command } from "commander";
import { join, resolve } from "node:path";
import { findNsys } from "../profile/nsysFind";
import { nsysProfileReport } from "../profile/nsysProfile";
import { NsysReportError } from "../profile/nsysReportDb";
import type { NsysReadLimits } from "../profile/nsysReaderClient";
import { loadNsysSummary, type NsysToolOptions } from "../profile/nsysReportLoad";
import type { NsysSummary } from "../profile/nsysReportSummary";
import { CliError } from "./cliError";
import { EXIT } from "./exitCodes";
import { formatDuration } from "./ncu";

// A report nsys export cannot read is damaged input too (exit 1), like a damaged .sqlite, and so
// is one the reader gave up on past its budget.
const INPUT_FAULTS = new Set([
  "NOT_FOUND",
  "DAMAGED",
  "NOT_NSYS",
  "EXPORT_FAILED",
  "TIME_BUDGET",
  "MEMORY_BUDGET",
  "ROW_BUDGET",
]);

export function nsysCliError(e: unknown): unknown {
  if (!(e instanceof NsysReportError)) return e;
  const exit =
    e.code === "USAGE"
      ? EXIT.usage
      : e.code === "CANCELLED"
        ? EXIT.cancelled
        : INPUT_FAULTS.has(e.code)
          ? EXIT.found
          : EXIT.tool;
  return new CliError(e.message, exit);
}

/**
 * Runs FN with a signal that Ctrl+C aborts (the export and the reader process stop, exit 130); a
 * second Ctrl+C quits at once.
 */
async function cancellable<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  const onSigint = (): void => (abort.signal.aborted ? process.exit(EXIT.cancelled) : abort.abort());
  process.on("SIGINT", onSigint);
  try {
    return await fn(abort.signal);
  } finally {
    process.off("SIGINT", onSigint);
  }
}

/** --max-seconds / --max-memory as the reader's limits; a bad value is bad usage. */
function readLimits(o: { maxSeconds?: string; maxMemory?: string }): NsysReadLimits {
  const positive = (v: string | undefined, flag: string): number | undefined => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!(n > 0)) throw new CliError(`${flag} must be a positive number, got '${v}'`, EXIT.usage);
    return n;
  };
  const seconds = positive(o.maxSeconds, "--max-seconds");
  const memoryMb = positive(o.maxMemory, "--max-memory");
  return { ...(seconds ? { seconds } : {}), ...(memoryMb ? { memoryMb } : {}) };
}

const cut = (s: string, n: number): string => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);

/** The summary as text: the tables one reads first, short kernel names. */
export function formatNsysSummary(s: NsysSummary, top = 15): string {
  const out: string[] = [`${s.report}: ${s.kernelCount} kernels from ${s.launches} launches`];
  for (const g of s.gpuIdle)
    out.push(
      `GPU ${g.deviceId}: busy ${formatDuration(g.busyNs)} of ${formatDuration(g.endNs - g.startNs)}, idle ${g.idlePct}%`,
    );
  out.push("", "Time(%)  Total       Instances  Avg         Kernel");
  for (const k of s.kernels.slice(0, top))
    out.push(
      `${k.timePct.toFixed(1).padStart(6)}  ${formatDuration(k.totalNs).padEnd(11)} ${String(k.instances).padStart(9)}  ${formatDuration(k.avgNs).padEnd(11)} ${cut(k.shortName, 60)}`,
    );
  if (s.kernels.length > top) out.push(`  … ${s.kernels.length - top} more (--json lists all)`);
  if (s.memory.length > 0) out.push("", "Memory operations");
  for (const m of s.memory)
    out.push(`  ${m.operation}: ${m.instances} in ${formatDuration(m.totalNs)}, ${m.bytes} bytes`);
  if (s.nvtx.length > 0)
    out.push("", "NVTX ranges: launches per instance (avg [min-max]), GPU time, launch gaps");
  for (const r of s.nvtx) {
    const n = r.time.instances;
    out.push(
      `  ${r.domain ? `${r.domain}:` : ""}${r.name} x${n}: ${r.launches.avg} [${r.launches.min}-${r.launches.max}] launches, ` +
        `${r.distinctKernels} distinct kernels, range ${formatDuration(r.time.avgNs)}, ` +
        `GPU ${formatDuration(r.kernelTimeNs / n)}, gaps ${formatDuration(r.gapNs / n)} per instance`,
    );
    for (const k of r.topKernels.slice(0, 3)) out.push(`      ${k.count} x ${cut(k.shortName, 60)}`);
  }
  return out.join("\n");
}

const nsysPathOf = (given: string | undefined): string | undefined => findNsys({ configured: given });

interface ProfileOpts {
  out?: string;
  nsys?: string;
  trace: string;
  nsysArg: string[];
  json?: boolean;
  summary: boolean;
}

function profileCommand(): Command {
  return new Command("profile")
    .description("Run COMMAND under nsys profile (CUDA + NVTX trace) and summarize the report.")
    .argument("<command...>", "the command to profile, after --: python3 train.py, ./bench, ...")
    .option("-o, --out <file>", "the report to write (default .cuda-kernel-dev/profiles/nsys-TIME.nsys-rep)")
    .option("--nsys <path>", "the nsys executable (default: PATH, then the usual install folders)")
    .option("--trace <apis>", "nsys --trace", "cuda,nvtx")
    .option(
      "--nsys-arg <arg>",
      "one more nsys profile option (repeatable)",
      (v: string, p: string[]) => [...p, v],
      [],
    )
    .option("--json", "print the summary as JSON")
    .option("--no-summary", "only write the report")
    .action(async (command: string[], o: ProfileOpts) => {
      try {
        const stamp = new Date().toISOString().replace(/[:.]/g, "-");
        const report = resolve(o.out ?? join(".cuda-kernel-dev", "profiles", `nsys-${stamp}.nsys-rep`));
        const nsysPath = nsysPathOf(o.nsys);
        const r = await nsysProfileReport({
          nsysPath,
          command,
          report: report.endsWith(".nsys-rep") ? report : `${report}.nsys-rep`,
          trace: o.trace,
          extraArgs: o.nsysArg,
          onLine: (l) => process.stderr.write(`${l}\n`),
        });
        process.stderr.write(`report: ${r.report}\n`);
        if (r.programExitCode !== null)
          process.stderr.write(`note: the program exited with code ${r.programExitCode}\n`);
        if (!o.summary) return;
        const s = await cancellable((signal) => loadNsysSummary(r.report, { nsysPath, signal }));
        process.stdout.write(o.json ? `${JSON.stringify(s, null, 2)}\n` : `${formatNsysSummary(s)}\n`);
      } catch (e) {
        throw nsysCliError(e);
      }
    });
}

interface SummarizeOpts {
  json?: boolean;
  nsys?: string;
  top: string;
  maxSeconds?: string;
  maxMemory?: string;
}

function summarizeCommand(): Command {
  return new Command("summarize")
    .description(
      "Summarize a .nsys-rep report or its SQLite export: kernels, copies, NVTX launches per range.",
    )
    .argument("<report>", "REPORT.nsys-rep (needs nsys) or REPORT.sqlite (nsys export --type sqlite)")
    .option("--json", "print the summary as JSON (see the README)")
    .option("--nsys <path>", "the nsys executable, for .nsys-rep files")
    .option("--top <n>", "kernels listed in the text summary", "15")
    .option("--max-seconds <s>", "the reader's time budget (default 20 s + 2 s per MB of export)")
    .option("--max-memory <MB>", "the reader's memory budget (default 256 MB + 40 MB per MB of export)")
    .action(async (file: string, o: SummarizeOpts) => {
      try {
        const limits = readLimits(o);
        const s = await cancellable((signal) => {
          const opts: NsysToolOptions = { nsysPath: nsysPathOf(o.nsys), signal, limits };
          return loadNsysSummary(file, opts);
        });
        process.stdout.write(
          o.json ? `${JSON.stringify(s, null, 2)}\n` : `${formatNsysSummary(s, Number(o.top) || 15)}\n`,
        );
      } catch (e) {
        throw nsysCliError(e);
      }
    });
}

export function nsysCommand(): Command {
  return new Command("nsys")
    .description("Nsight Systems: profile a command, summarize reports (launches per NVTX range).")
    .addCommand(profileCommand())
    .addCommand(summarizeCommand());
}
