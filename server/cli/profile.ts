// `cuda-kernel-dev profile FILE --kernel NAME`: profiles one kernel with Nsight Compute and prints
// the summary. FILE is a .cu program with a main() (compiled here with nvcc -lineinfo so the source
// page can map samples to lines) or an already built executable.
import { Command, Option } from "commander";
import { basename, join, resolve } from "node:path";
import { loadCsvs, exportReport } from "../profile/loadProfile";
import { ncuVersion, profile, type ClockControl, type NcuSet } from "../profile/ncuCli";
import { readFile } from "node:fs/promises";
import { buildProgram, hasMain } from "../profile/buildProgram";
import { profileWithBenchHarness } from "../profile/profileBench";
import { summarize } from "../profile/ncuSummary";
import { CliError } from "./cliError";
import { EXIT } from "./exitCodes";
import { formatSummary, toCliError } from "./ncu";

interface ProfileCliOptions {
  kernel: string;
  set: NcuSet;
  clockControl: ClockControl;
  count: string;
  skip?: string;
  out: string;
  ncu: string;
  nvcc: string;
  arch?: string;
  json?: boolean;
}

export function profileCommand(): Command {
  return new Command("profile")
    .description("Profile one kernel with Nsight Compute (ncu) and summarize it.")
    .argument("<file>", "a .cu program with main(), or an executable")
    .argument("[args...]", "arguments for the program (after --)")
    .requiredOption("-k, --kernel <name>", "kernel name (regex on the function name)")
    .addOption(
      new Option("--set <set>", "ncu section set").choices(["basic", "detailed", "full"]).default("full"),
    )
    .addOption(
      new Option("--clock-control <mode>", "ncu clock control").choices(["base", "none"]).default("base"),
    )
    .option("-c, --count <n>", "launches to profile", "1")
    .option("-s, --skip <n>", "matching launches to skip first (warm-up)")
    .option("-o, --out <dir>", "where the .ncu-rep and its CSV pages go", ".cuda-kernel-dev/profiles")
    .option("--ncu <path>", "the ncu executable", "ncu")
    .option("--nvcc <path>", "the nvcc executable", "nvcc")
    .option("--arch <arch>", "nvcc -arch (default: native)")
    .option("--json", "print {kernels: [...]} as JSON")
    .action(async (file: string, args: string[], o: ProfileCliOptions) => {
      const count = Number(o.count);
      if (!Number.isInteger(count) || count < 1)
        throw new CliError(`--count must be a positive integer, got "${o.count}"`, EXIT.usage);
      try {
        await ncuVersion(o.ncu); // ncu first: no point building a program nothing can profile
        const outDir = resolve(o.out);
        const stamp = new Date().toISOString().replace(/[:.]/g, "-");
        const safeKernel = o.kernel.replace(/[^A-Za-z0-9_]+/g, "_");
        const onLine = (l: string): void => {
          if (!o.json && l.startsWith("==PROF==")) process.stderr.write(`${l}\n`);
        };
        let rep: string;
        if (file.endsWith(".cu") && !hasMain(await readFile(file, "utf8"))) {
          // A kernel-only file: its @bench spec drives the benchmark harness, run under ncu.
          rep = await profileWithBenchHarness({
            file,
            kernel: o.kernel,
            nvcc: o.nvcc,
            ncu: o.ncu,
            set: o.set,
            clockControl: o.clockControl,
            count,
            report: join(outDir, `${basename(file, ".cu")}-${safeKernel}-${o.set}-${stamp}`),
            onLine,
            ...(o.arch ? { arch: o.arch } : {}),
          });
        } else {
          const exe = file.endsWith(".cu") ? await buildProgram(o.nvcc, file, outDir, o.arch) : resolve(file);
          rep = await profile({
            ncuPath: o.ncu,
            command: [exe, ...args],
            report: join(outDir, `${basename(exe)}-${safeKernel}-${o.set}-${stamp}`),
            kernel: o.kernel,
            count,
            ...(o.skip !== undefined ? { skip: Number(o.skip) } : {}),
            set: o.set,
            clockControl: o.clockControl,
            onLine,
          });
        }
        const loaded = await loadCsvs(await exportReport(o.ncu, rep, outDir));
        const summary = summarize(loaded.details);
        process.stderr.write(`report: ${rep}\n`);
        if (summary.kernels.length === 0)
          throw new CliError(`${rep}: no kernels in report (did --kernel match a launch?)`, EXIT.found);
        process.stdout.write(
          o.json ? `${JSON.stringify(summary, null, 2)}\n` : `${formatSummary(summary.kernels)}\n`,
        );
      } catch (e) {
        throw toCliError(e);
      }
    });
}
