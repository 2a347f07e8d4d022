// Stage 3 of a benchmark: the kernel (and its baseline) instantiated in a harness, compiled for the
// GPU's architecture (or the job's) with the project's flags, cached, and found again in the cubin.
import { projectFlags } from "../compiler/compileFile";
import { errorMessage } from "../util/errorMessage";
import { BenchError, type BenchJob, signalOf } from "./benchJob";
import { CompileError, type CompileResult, compileCubin } from "./compile";
import type { BenchEnvironment } from "./environment";
import { generateHarness, type KernelInstance, resolveInstance } from "./harness";
import { findKernel, type PreparedBench } from "./prepare";
import type { CompileInfo } from "./results";
import { findSymbol } from "./symbols";

export interface BuiltKernels {
  inst: KernelInstance;
  baseInst?: KernelInstance;
  cubinPath: string;
  /** What the results say about the compile, the symbols to launch included. */
  info: CompileInfo;
}

/** The kernel's instance and its baseline's (by the spec's template values, or the baseline's own). */
function instancesOf({ kernel, kernels, spec }: PreparedBench): [KernelInstance, KernelInstance?] {
  const inst = resolveInstance(kernel, spec.template);
  const baselineKernel = spec.baseline ? findKernel(kernels, spec.baseline.name) : undefined;
  const baseInst = baselineKernel
    ? resolveInstance(baselineKernel, spec.template, spec.baseline?.templateArgs)
    : undefined;
  return [inst, baseInst];
}

async function compileHarness(
  job: BenchJob,
  file: string,
  instances: KernelInstance[],
  nvcc: string,
  arch: string,
): Promise<{ compiled: CompileResult; flagsFrom: string }> {
  const project = projectFlags(
    file,
    { includePaths: job.includePaths ?? [], extraArgs: job.extraArgs ?? [] },
    job.workspace,
  );
  try {
    const compiled = await compileCubin({
      harness: generateHarness(file, instances),
      nvcc,
      arch,
      flags: project.args,
      cwd: project.cwd,
      cacheDir: job.cacheDir,
      ...signalOf(job),
    });
    return { compiled, flagsFrom: project.from };
  } catch (e) {
    if (e instanceof CompileError)
      throw new BenchError(e.code === "CANCELLED" ? "CANCELLED" : "COMPILE", e.message, e.log);
    throw e;
  }
}

/** Compiles the job's kernel (and baseline) into a cubin and names the symbols to launch. */
export async function buildKernels(
  job: BenchJob,
  prepared: PreparedBench,
  env: BenchEnvironment,
): Promise<BuiltKernels> {
  const [inst, baseInst] = instancesOf(prepared);
  job.onProgress?.({ stage: "compiling" });
  const arch = job.arch ?? `sm_${env.device.computeCapability.replace(".", "")}`;
  const { compiled, flagsFrom } = await compileHarness(
    job,
    prepared.file,
    baseInst ? [inst, baseInst] : [inst],
    env.nvcc,
    arch,
  );
  const symbols = compiled.kernels.map((k) => k.symbol);
  let symbol: string;
  let baselineSymbol: string | undefined;
  try {
    symbol = findSymbol(inst, symbols);
    baselineSymbol = baseInst ? findSymbol(baseInst, symbols) : undefined;
  } catch (e) {
    throw new BenchError("SYMBOL", errorMessage(e));
  }
  const res = compiled.kernels.find((k) => k.symbol === symbol);
  const info: CompileInfo = {
    arch,
    cached: compiled.cached,
    ms: compiled.ms,
    symbol,
    ...(baselineSymbol ? { baselineSymbol } : {}),
    ...(res
      ? {
          registers: res.registers,
          sharedBytes: res.sharedBytes,
          spillBytes: res.spillStoreBytes + res.spillLoadBytes,
        }
      : {}),
    flagsFrom,
  };
  return { inst, ...(baseInst ? { baseInst } : {}), cubinPath: compiled.cubinPath, info };
}
