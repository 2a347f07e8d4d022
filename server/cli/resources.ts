// `cuda-kernel-dev resources FILE [--arch sm_80,sm_90] [--json] [--nvcc PATH] [-I DIR…]`: registers,
// shared memory, stack and spills of each kernel per architecture, from ptxas. Targets default to the
// file's build targets (build.toml, CMakeLists.txt, ... as the linter resolves them).
// Exit status 4 when the file does not compile (compiler errors go to stderr as file:line:col lines),
// 3 when nvcc is missing, 2 for bad usage (README, "Exit codes").
import { Command } from "commander";
import { existsSync } from "node:fs";
import { relative, resolve } from "node:path";
import { compileForArchs, mergeDiagnostics, projectFlags } from "../compiler/compileFile";
import { NvccNotFoundError, resolveNvcc } from "../compiler/nvcc";
import { formatArch, parseArchList } from "../lint/arch";
import { resolveTargets } from "../lint/targets";
import { errorMessage } from "../util/errorMessage";
import { CliError } from "./cliError";
import { EXIT } from "./exitCodes";

interface ResourcesCliOptions {
  arch?: string;
  json?: boolean;
  nvcc?: string;
  include: string[];
  timeout: string;
}

export function resourcesCommand(): Command {
  return new Command("resources")
    .description(
      "Registers, shared memory, stack and spills of each kernel in FILE, per target architecture (nvcc -Xptxas -v).",
    )
    .argument("<file>", "a .cu file")
    .option("--arch <list>", "architectures, e.g. sm_80,sm_90 (default: the file's build targets)")
    .option("--json", "print JSON")
    .option("--nvcc <path>", "the nvcc to run (default: PATH, then /usr/local/cuda/bin/nvcc)")
    .option(
      "-I, --include <dir>",
      "an include path (repeatable)",
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .option("--timeout <seconds>", "per compile", "300")
    .action(async (fileArg: string, opts: ResourcesCliOptions) => {
      const file = resolve(fileArg);
      if (!existsSync(file)) throw new CliError(`${fileArg}: no such file`, EXIT.usage);
      let archs: number[];
      try {
        archs =
          opts.arch !== undefined
            ? parseArchList(opts.arch)
            : resolveTargets({ file, stopAt: process.cwd() }).archs;
      } catch (err) {
        throw new CliError(`--arch: ${errorMessage(err)}`, EXIT.usage);
      }
      if (archs.length === 0) throw new CliError("--arch is empty", EXIT.usage);
      let nvcc: string;
      try {
        nvcc = await resolveNvcc(opts.nvcc);
      } catch (err) {
        // The message names the editor's setting; here the flag (or PATH) chose it.
        if (err instanceof NvccNotFoundError)
          throw new CliError(
            opts.nvcc !== undefined
              ? `--nvcc: nvcc not found at "${opts.nvcc}"`
              : err.message.replace(/\bset cudaKernelDev\.nvcc\.path\b/, "pass --nvcc PATH"),
            EXIT.tool,
          );
        throw err;
      }
      const timeout = Number(opts.timeout);
      if (!(timeout > 0))
        throw new CliError(
          `--timeout must be a positive number of seconds, got "${opts.timeout}"`,
          EXIT.usage,
        );
      const flags = projectFlags(file, { includePaths: opts.include, extraArgs: [] }, process.cwd());
      const results = await compileForArchs({
        file,
        archs: archs.map(formatArch),
        nvcc,
        flags,
        timeoutMs: timeout * 1000,
      });
      const cwd = process.cwd();
      for (const d of mergeDiagnostics(results)) {
        if (d.severity !== "error" && d.severity !== "warning") continue;
        process.stderr.write(
          `${relative(cwd, d.file)}:${d.range.startLine + 1}:${d.range.startColumn + 1}: ${d.severity}: ${d.message.split("\n")[0]}\n`,
        );
      }
      const failed = results.filter((r) => r.run.exitCode !== 0);
      for (const r of results.filter((x) => x.run.timedOut))
        process.stderr.write(
          `cuda-kernel-dev resources: ${r.arch}: nvcc ran past ${timeout} s and was stopped\n`,
        );
      const kernels = results.flatMap((r) => r.kernels);
      if (opts.json) {
        const out = results.map((r) => ({ arch: r.arch, ok: r.run.exitCode === 0, kernels: r.kernels }));
        process.stdout.write(
          `${JSON.stringify({ file: relative(cwd, file) || file, nvcc, flagsFrom: flags.from, results: out }, null, 2)}\n`,
        );
      } else {
        const rows = kernels.map((k) => [
          k.arch,
          k.name,
          String(k.registers),
          String(k.sharedBytes),
          String(k.stackFrameBytes),
          `${k.spillStoreBytes}/${k.spillLoadBytes}`,
          String(k.barriers),
        ]);
        const header = ["arch", "kernel", "regs", "smem B", "stack B", "spill st/ld B", "barriers"];
        const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
        const fmt = (r: string[]): string =>
          r.map((c, i) => (i === 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
        if (rows.length) process.stdout.write([fmt(header), ...rows.map(fmt)].join("\n") + "\n");
        else if (!failed.length) process.stdout.write("no kernels\n");
      }
      if (failed.length) process.exitCode = EXIT.compile;
    });
}
