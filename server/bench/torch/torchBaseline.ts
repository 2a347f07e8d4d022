// The PyTorch baseline of a benchmark (`// @bench torch EXPR`): for each size, after the runner has
// measured the kernel and written its outputs to a temporary folder, `python3 sidecar.py REQUEST`
// runs on the same GPU (through the one launcher, so the trust gate applies) and answers with torch's
// times and the check of the kernel's outputs against torch's. One process per size: it exits (or
// is killed on cancel or timeout) before the next size starts, so none is ever left running.
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DeviceAttributes, TimingOptions } from "../../../native/runner/protocol";
import { LaunchError, runProcess } from "../../process/launch";
import { BenchError, type BenchJob } from "../benchJob";
import type { SizePoint } from "../plan";
import { derive, speedup } from "../report";
import type { BenchRunResults, PointResult, TorchPointResult } from "../results";
import type { BenchSpec } from "../specTypes";
import type { TorchArg, TorchRequest, TorchResponse } from "./torchProtocol";

/** torch.compile of a new shape takes tens of seconds; a size taking longer than this is stuck. */
const SIDECAR_TIMEOUT_MS = 10 * 60 * 1000;
export const PYTHON_SETTING = "cudaKernelDev.python.path";

/** Overrides where sidecar.py is (tests). */
export const SIDECAR_ENV = "CUDA_KERNEL_DEV_TORCH_SIDECAR";

/** dist/torch/sidecar.py beside the bundle, or this folder's sidecar.py when run from source. */
export function sidecarPath(dir: string = __dirname): string {
  const fromEnv = process.env[SIDECAR_ENV];
  if (fromEnv) return fromEnv;
  const candidates = [join(dir, "torch", "sidecar.py"), join(dir, "sidecar.py")];
  return candidates.find((p) => existsSync(p)) ?? candidates[0]!;
}

function torchArgs(p: SizePoint): TorchArg[] {
  return p.args.map((a, i) =>
    a.kind === "scalar"
      ? a
      : {
          ...a,
          // The runner's default seed is the 1-based position (native/runner/benchmark.ts).
          seed: "seed" in a.init && a.init.seed !== undefined ? a.init.seed : i + 1,
        },
  );
}

/** The last non-empty line of a program's stderr: where Python puts the exception. */
function lastLine(text: string): string {
  return (
    text
      .trim()
      .split(/\r?\n/)
      .filter((l) => l.trim())
      .at(-1) ?? ""
  );
}

export class TorchBaseline {
  /** Set once the first size finds no Python, no torch or no CUDA in it: the later sizes skip torch. */
  unavailable: string | undefined;
  torchVersion: string | undefined;
  private readonly python: string;
  private readonly where: string;

  constructor(
    private readonly job: BenchJob,
    private readonly spec: BenchSpec & { torch: NonNullable<BenchSpec["torch"]> },
    shownFile: string,
    private readonly device: DeviceAttributes,
    private readonly timing: TimingOptions,
  ) {
    this.python = job.pythonPath || "python3";
    const s = spec.torch.span;
    this.where = `${shownFile}:${s.startLine + 1}:${s.startColumn + 1}`;
  }

  /** What the results record of it. */
  get info(): NonNullable<BenchRunResults["torch"]> {
    return {
      expr: this.spec.torch.expr,
      compile: !!this.spec.torchCompile,
      ...(this.torchVersion ? { torchVersion: this.torchVersion } : {}),
      ...(this.unavailable ? { unavailable: this.unavailable } : {}),
    };
  }

  /** A temporary folder for the runner to write the kernel's outputs to; undefined once torch is out. */
  async outputsDir(): Promise<string | undefined> {
    return this.unavailable ? undefined : mkdtemp(join(tmpdir(), "ckd-torch-"));
  }

  /** Removes a folder outputsDir() made, unused (the kernel failed at that size). */
  async discard(dir: string | undefined): Promise<void> {
    if (dir) await rm(dir, { recursive: true, force: true });
  }

  /** Runs the sidecar for size `p` (the kernel's outputs in `dir`) and removes `dir`. */
  async run(p: SizePoint, dir: string, kernel: PointResult): Promise<TorchPointResult | undefined> {
    try {
      const response = await this.sidecar(p, dir);
      return response && this.result(response, p, kernel);
    } finally {
      await this.discard(dir);
    }
  }

  private async sidecar(p: SizePoint, dir: string): Promise<TorchResponse | undefined> {
    const request: TorchRequest = {
      expr: this.spec.torch.expr,
      compile: !!this.spec.torchCompile,
      device: this.device.ordinal,
      args: torchArgs(p),
      vars: p.sizes,
      timing: this.timing,
      l2Bytes: this.device.l2CacheBytes,
      ...(kernelHasOutputs(p) ? { outputsDir: dir } : {}),
    };
    const requestFile = join(dir, "request.json");
    await writeFile(requestFile, JSON.stringify(request));
    let r;
    try {
      r = await runProcess(this.python, ["-u", sidecarPath(), requestFile], {
        tool: "the PyTorch baseline (python)",
        setting: PYTHON_SETTING,
        timeoutMs: SIDECAR_TIMEOUT_MS,
        ...(this.job.signal ? { signal: this.job.signal } : {}),
      });
    } catch (e) {
      if (!(e instanceof LaunchError)) throw e;
      this.unavailable = e.message;
      return undefined;
    }
    if (r.cancelled) throw new BenchError("CANCELLED", "cancelled");
    const line = lastLine(r.stdout);
    if (r.exitCode === 0 && line.startsWith("{")) return JSON.parse(line) as TorchResponse;
    const why = r.timedOut
      ? `took over ${SIDECAR_TIMEOUT_MS / 1000} s`
      : `exited with code ${r.exitCode ?? r.signal}`;
    return { error: { kind: "internal", message: `the torch sidecar ${why}: ${lastLine(r.stderr)}` } };
  }

  private result(r: TorchResponse, p: SizePoint, kernel: PointResult): TorchPointResult | undefined {
    if ("error" in r) {
      if (r.error.kind === "unavailable") {
        this.unavailable = r.error.message;
        return undefined;
      }
      const prefix = r.error.kind === "expr" ? `${this.where}: torch expression failed: ` : "";
      return { checks: [], error: prefix + r.error.message };
    }
    this.torchVersion = r.torchVersion;
    const peak = this.device.peakDramBandwidthGBs;
    const eager = { ...r.eager, ...derive(r.eager, p.bytes, p.flops, peak) };
    const compiled = r.compiled && { ...r.compiled, ...derive(r.compiled, p.bytes, p.flops, peak) };
    const sp = speedup(kernel.kernel, eager);
    const csp = compiled && speedup(kernel.kernel, compiled);
    return {
      eager,
      ...(compiled ? { compiled } : {}),
      ...(sp !== undefined ? { speedup: sp } : {}),
      ...(csp !== undefined ? { compiledSpeedup: csp } : {}),
      checks: r.checks,
      ...(r.compileError ? { compileError: r.compileError } : {}),
    };
  }
}

function kernelHasOutputs(p: SizePoint): boolean {
  return p.args.some((a) => a.kind === "buffer" && a.output);
}

/** The job's torch baseline, when its spec asks for one. */
export function torchBaseline(
  job: BenchJob,
  spec: BenchSpec,
  shownFile: string,
  device: DeviceAttributes,
  timing: TimingOptions,
): TorchBaseline | undefined {
  const torch = spec.torch;
  return torch ? new TorchBaseline(job, { ...spec, torch }, shownFile, device, timing) : undefined;
}
