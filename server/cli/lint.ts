// `cuda-kernel-dev lint [paths…] [--arch sm_75,sm_90] [--format text|json|sarif]`: the editor's lints in CI.
// Exit status 1 when any error-level finding is reported.
import { Command, Option } from "commander";
import { parseArchList } from "../lint/arch";
import { resolve } from "node:path";
import { collectCudaFiles, lintFiles } from "../lint/lintFiles";
import { formatText, toJsonFindings, toSarif } from "../lint/report";
import { rules } from "../rules/index";
import { errorMessage } from "../util/errorMessage";
import { CliError } from "./cliError";

interface LintCliOptions {
  arch?: string;
  format: "text" | "json" | "sarif";
}

export function lintCommand(): Command {
  return new Command("lint")
    .description("Check .cu/.cuh files against the CUDA convention rules (folders are searched).")
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
        process.stderr.write(`cuda-kernel-dev lint: no .cu or .cuh files in ${paths.join(", ")}\n`);
      // Project headers are read up to the folders named, or the working folder for files named.
      const headerRoots = [process.cwd(), ...paths.map((p) => resolve(p))];
      const reports = await lintFiles(files, { rules, archs, headerRoots });
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
