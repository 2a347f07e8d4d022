// `cuda-kernel-dev lint [paths…] [--arch sm_75,sm_90] [--format text|json|sarif]`: the editor's lints in CI.
// Exit status 1 when any error-level finding is reported; 5 when the run could not lint everything it was
// asked to (an unreadable file or folder, a parse past the time limit, a rule that failed), whatever it
// found; 2 for bad usage (README, "Exit codes").
import { VERSION } from "../version";
import { Command, Option } from "commander";
import { resolve } from "node:path";
import { parseArchList } from "../lint/arch";
import { describeContext, relativePaths, resolveBuildContext } from "../lint/buildContext";
import { findCudaFiles, lintFiles, type CudaFiles, type FileReport } from "../lint/lintFiles";
import { machineGpuArch } from "../lint/machineGpu";
import { formatText, notLinted, toJsonFindings, toSarif } from "../lint/report";
import { rules } from "../rules/index";
import { errorMessage } from "../util/errorMessage";
import { CliError } from "./cliError";
import { EXIT } from "./exitCodes";

interface LintCliOptions {
  arch?: string;
  format: "text" | "json" | "sarif";
  explainContext?: string;
  gpu: boolean;
}

/** One line for every file whose build compiles it for another backend: they are not linted as CUDA. */
function notCudaSummary(reports: readonly FileReport[]): string | undefined {
  const skipped = reports.filter((r) => r.notCuda);
  if (skipped.length === 0) return undefined;
  const backends = [...new Set(skipped.map((r) => r.context.backend))].sort().join(", ");
  return `cuda-kernel-dev lint: ${skipped.length} file(s) not linted: their build compiles them for ${backends}, not CUDA (see --explain-context FILE)\n`;
}

// What a folder walk takes (collectCudaFiles); a file named on the command line is linted whatever its name.
const SOURCES = ".cu/.cuh files";
const HEADERS = ".h/.hpp/.hxx/.inl headers with __global__/__device__ code";

export function lintCommand(): Command {
  return new Command("lint")
    .description(
      `Check CUDA sources against the convention rules: files named, and in folders ${SOURCES} and ${HEADERS}.`,
    )
    .argument("[paths...]", "files or folders", ["."])
    .option("--arch <list>", "target architectures, overriding build files, e.g. sm_75,sm_90")
    .option(
      "--explain-context <file>",
      "print the build context of one file (build, backend, targets, macros) and exit",
    )
    .option("--no-gpu", "do not assume this machine's GPU for files that declare no targets")
    .addOption(
      new Option("--format <format>", "output format").choices(["text", "json", "sarif"]).default("text"),
    )
    .action(async (paths: string[], opts: LintCliOptions) => {
      let archs: number[] | undefined;
      try {
        archs = opts.arch ? parseArchList(opts.arch) : undefined;
        if (opts.arch !== undefined && archs?.length === 0) throw new Error("--arch is empty");
      } catch (err) {
        throw new CliError(`--arch: ${errorMessage(err)}`, EXIT.usage);
      }
      const gpuArch = opts.gpu ? await machineGpuArch() : undefined;
      if (opts.explainContext !== undefined) {
        const ctx = resolveBuildContext({
          file: resolve(opts.explainContext),
          explicit: archs && archs.length > 0 ? { archs, source: "cli" } : undefined,
          ...(gpuArch !== undefined ? { gpuArch } : {}),
        });
        const cwd = process.cwd();
        const notes = ctx.targets.notes.map((n) => `Note: ${relativePaths(n, cwd)}`);
        const lines = [...describeContext(ctx, cwd), ...notes];
        process.stdout.write(`${lines.join("\n")}\n`);
        return;
      }
      let walk: CudaFiles;
      try {
        walk = findCudaFiles(paths);
      } catch (err) {
        throw new CliError(errorMessage(err), EXIT.usage);
      }
      const { files } = walk;
      if (files.length === 0)
        process.stderr.write(`cuda-kernel-dev lint: no ${SOURCES} or ${HEADERS} in ${paths.join(", ")}\n`);
      // Project headers are read up to the folders named, or the working folder for files named.
      const headerRoots = [process.cwd(), ...paths.map((p) => resolve(p))];
      const reports = await lintFiles(files, {
        rules,
        archs,
        headerRoots,
        ...(gpuArch !== undefined ? { gpuArch } : {}),
      });
      const cwd = process.cwd();
      // Every path said is relative to the working folder, as the findings' are.
      for (const r of reports)
        for (const w of r.warnings)
          process.stderr.write(`cuda-kernel-dev lint: warning: ${relativePaths(w, cwd)}\n`);
      for (const s of walk.skipped.filter((w) => !w.incomplete))
        process.stderr.write(`cuda-kernel-dev lint: ${relativePaths(`${s.path}: ${s.reason}`, cwd)}\n`);
      const missed = notLinted(reports, walk.skipped);
      for (const m of missed)
        process.stderr.write(
          `cuda-kernel-dev lint: ${relativePaths(`${m.path}: not linted: ${m.reason}`, cwd)}\n`,
        );
      const summary = notCudaSummary(reports);
      if (summary) process.stderr.write(summary);
      if (opts.format === "json")
        process.stdout.write(`${JSON.stringify(toJsonFindings(reports, cwd, missed), null, 2)}\n`);
      else if (opts.format === "sarif")
        process.stdout.write(`${JSON.stringify(toSarif(reports, rules, cwd, VERSION, missed), null, 2)}\n`);
      else process.stdout.write(formatText(reports, cwd, missed));
      if (missed.length > 0) process.exitCode = EXIT.incomplete;
      else if (reports.some((r) => r.findings.some((f) => f.severity === "error")))
        process.exitCode = EXIT.found;
    });
}
