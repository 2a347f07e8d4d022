// `cuda-kernel-dev bench FILE --kernel NAME [--json]`: benchmarks one kernel from its `// @bench`
// spec on the local GPU and prints a table (or the results JSON the panel renders). Exit codes:
// 0 ok, 1 a size failed or an output check did not pass, 2 bad spec or usage, 3 no GPU / driver /
// nvcc here, 4 compile error. Each failure is one line on stderr, never a stack trace.
import { Command } from "commander";
import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { RunnerClient } from "../../native/runner/runnerClient";
import { defaultCacheDir } from "../bench/compile";
import { recordRun } from "../bench/recordRun";
import { formatTable, historyEntry, pointLine, torchPointLine } from "../bench/report";
import { BenchError, type BenchProgress, runBenchmark } from "../bench/runBench";
import { runCalibrateCli } from "./calibrate";
import { CliError } from "./cliError";
import { EXIT } from "./exitCodes";
import { BENCH_EXIT } from "./ncu";

interface BenchCliOptions {
  kernel?: string;
  calibrate?: boolean;
  ncu: string;
  json?: boolean;
  device: string;
  arch?: string;
  nvcc?: string;
  python?: string;
  include: string[];
  flag: string[];
  cacheDir?: string;
  out?: string;
  history: boolean;
  workspace?: string;
  timeout: string;
}

const collect = (v: string, prev: string[]) => [...prev, v];

export function benchCommand(): Command {
  return new Command("bench")
    .description("Benchmark a kernel from its // @bench spec on the local GPU (nvbench-style timing).")
    .argument("[file]", "the .cu file holding the kernel")
    .option("-k, --kernel <name>", "the __global__ kernel (name or ns::name); required with a file")
    .option(
      "--calibrate",
      "measure this GPU's CUDA-event overhead against Nsight Compute and keep it, so later runs report times less it",
    )
    .option("--ncu <path>", "the ncu executable, for --calibrate", "ncu")
    .option("--json", "print the results as JSON (the shape the results panel renders)")
    .option("--device <n>", "GPU ordinal", "0")
    .option("--arch <sm>", "compile for this architecture instead of the GPU's (e.g. sm_90a)")
    .option("--nvcc <path>", "the nvcc to use (default: PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)")
    .option("--python <path>", "the Python of the PyTorch baseline (`@bench torch`; default python3)")
    .option(
      "-I, --include <dir>",
      "an include directory (repeatable); replaces compile_commands.json flags",
      collect,
      [],
    )
    .option("--flag <arg>", "an extra nvcc argument (repeatable), e.g. --flag=--use_fast_math", collect, [])
    .option("--cache-dir <dir>", "where compiled cubins are cached")
    .option("-o, --out <file>", "also write the results JSON to this file")
    .option("--no-history", "do not append the run to .cuda-kernel-dev/bench-history.jsonl")
    .option("--workspace <dir>", "the workspace (history location, relative paths)", process.cwd())
    .option("--timeout <seconds>", "a size showing no progress for this long is killed", "20")
    .action(async (file: string | undefined, opts: BenchCliOptions) => {
      const device = Number(opts.device);
      const timeoutSeconds = Number(opts.timeout);
      if (!Number.isInteger(device) || device < 0)
        throw new CliError(`--device must be a GPU ordinal, got '${opts.device}'`, EXIT.usage);
      if (!(timeoutSeconds > 0))
        throw new CliError(
          `--timeout must be a positive number of seconds, got '${opts.timeout}'`,
          EXIT.usage,
        );
      if (opts.calibrate) {
        if (file !== undefined)
          throw new CliError("--calibrate takes no file: it times an empty kernel", EXIT.usage);
        const nvcc = opts.nvcc ? { nvcc: opts.nvcc } : {};
        const json = opts.json ? { json: true } : {};
        return runCalibrateCli({ device, ncu: opts.ncu, timeoutSeconds, ...nvcc, ...json });
      }
      if (file === undefined || opts.kernel === undefined)
        throw new CliError("bench needs a file and --kernel NAME (or --calibrate)", EXIT.usage);
      const kernel = opts.kernel;
      const workspace = resolve(opts.workspace ?? process.cwd());
      const client = new RunnerClient({ timeoutSeconds });
      const abort = new AbortController();
      // Ctrl-C cancels (exit 130); a second one quits at once. A listener stays registered for the
      // whole run: with none, execa's exit hook (signal-exit) re-raises SIGINT while the PyTorch
      // sidecar runs, and the CLI dies by the signal instead of cancelling.
      const onSigint = () => (abort.signal.aborted ? process.exit(EXIT.cancelled) : abort.abort());
      process.on("SIGINT", onSigint);
      try {
        const results = await runBenchmark({
          file,
          kernel,
          runner: client,
          device,
          ...(opts.nvcc ? { nvccPath: opts.nvcc } : {}),
          ...(opts.python ? { pythonPath: opts.python } : {}),
          ...(opts.arch ? { arch: opts.arch } : {}),
          extraArgs: opts.flag,
          includePaths: opts.include,
          workspace,
          cacheDir: opts.cacheDir ? resolve(opts.cacheDir) : defaultCacheDir(),
          signal: abort.signal,
          onProgress: (p) => {
            if (!opts.json) printProgress(p);
          },
        });
        const json = `${JSON.stringify(results, null, 2)}\n`;
        if (opts.out) await writeFile(opts.out, json);
        if (opts.history) {
          // A history that cannot be written is a warning: the run's results still print.
          const { warning } = await recordRun(workspace, historyEntry(results));
          if (warning) process.stderr.write(`cuda-kernel-dev: warning: ${warning}\n`);
        }
        process.stdout.write(opts.json ? json : `${formatTable(results)}\n`);
        if (!results.ok) process.exitCode = EXIT.found;
      } catch (e) {
        if (e instanceof BenchError) throw new CliError(e.message, BENCH_EXIT[e.code] ?? EXIT.found);
        throw e;
      } finally {
        process.off("SIGINT", onSigint);
        await client.dispose();
      }
    });
}

/** Each size on stderr as it starts and as its figures (the kernel's, then torch's) come in. */
function printProgress(p: BenchProgress): void {
  if (p.stage === "running" && p.phase === undefined)
    process.stderr.write(`[${p.point + 1}/${p.points}] ${p.label}\n`);
  else if (p.stage === "result")
    process.stderr.write(`[${p.point + 1}/${p.points}] ${p.label}: ${pointLine(p.results.points.at(-1))}\n`);
  else if (p.stage === "torch")
    process.stderr.write(
      `[${p.point + 1}/${p.points}] ${p.label} vs torch: ${torchPointLine(p.results.points[p.point])}\n`,
    );
}
