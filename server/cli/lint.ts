// `cuda-kernel-dev lint [paths…] [--arch sm_75,sm_90] [--format text|json|sarif]`: the editor's lints in CI.
// Exit status 1 when any error-level finding is reported.
import { Command, Option } from "commander";
import { parseArchList } from "../lint/arch";
import { collectCudaFiles, lintFiles } from "../lint/lintFiles";
import { formatText, toJsonFindings, toSarif } from "../lint/report";
import { rules } from "../rules/index";
import { errorMessage } from "../util/errorMessage";
import { CliError } from "./cliError";

interface LintCliOptions {
  arch?: string;
  format: "text" | "json" | "sarif";
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
    .addOption(
      new Option("--format <format>", "output format").choices(["text", "json", "sarif"]).default("text"),
    )
    .action(async (paths: string[], opts: LintCliOptions) => {
      let archs: number[] | undefined;
      try {
        archs = opts.arch ? parseArchList(opts.arch) : undefined;
        if (opts.arch !== undefined && archs?.length === 0) throw new Error("--arch is empty");
      } catch (err) {
        throw new CliError(`--arch: ${errorMessage(err)}`, 2);
      }
      let files: string[];
      try {
        files = collectCudaFiles(paths);
      } catch (err) {
        throw new CliError(errorMessage(err), 2);
      }
      if (files.length === 0)
        process.stderr.write(`cuda-kernel-dev lint: no ${SOURCES} or ${HEADERS} in ${paths.join(", ")}\n`);
      const reports = await lintFiles(files, { rules, archs });
      const cwd = process.cwd();
      for (const r of reports) {
        for (const w of r.warnings) process.stderr.write(`cuda-kernel-dev lint: warning: ${w}\n`);
        if (r.skipped) process.stderr.write(`cuda-kernel-dev lint: ${r.file}: ${r.skipped}\n`);
      }
      if (opts.format === "json")
        process.stdout.write(`${JSON.stringify(toJsonFindings(reports, cwd), null, 2)}\n`);
      else if (opts.format === "sarif")
        process.stdout.write(`${JSON.stringify(toSarif(reports, rules, cwd, "0.1.0"), null, 2)}\n`);
      else process.stdout.write(formatText(reports, cwd));
      if (reports.some((r) => r.findings.some((f) => f.severity === "error"))) process.exitCode = 1;
    });
}
