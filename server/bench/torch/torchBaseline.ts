// The PyTorch baseline of a benchmark (`// @bench torch EXPR`): one Python sidecar per run
// (sidecarProcess.ts), started as the run starts so that torch's import and CUDA init overlap with the
// compile and the kernel's sizes, or, when the job has a SidecarPool (the extension), the live one an
// earlier run left. Once the runner has measured every size and written each one's outputs to a
// temporary folder, the sidecar gets one request per size, in turn (never timing while the runner
// does), and answers with torch's times and the check of the kernel's outputs against torch's. When
// the run ends it is closed (or killed on cancel or timeout), so none is left running, or released
// to the pool, which frees what the run left and keeps it for the next run.
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DeviceAttributes, TimingOptions } from "../../../native/runner/protocol";
import { BenchError, type BenchJob } from "../benchJob";
import { correctStats } from "../calibration";
import type { SizePoint } from "../plan";
import { derive, speedup } from "../report";
import type { BenchRunResults, PointResult, TorchPointResult } from "../results";
import type { BenchSpec } from "../specTypes";
import { SidecarProcess } from "./sidecarProcess";
import type { TorchArg, TorchRequest, TorchResponse, TorchStats } from "./torchProtocol";

/** torch.compile of a new shape takes tens of seconds; a size (its wait for torch's import included) taking longer than this is stuck. */
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

export class TorchBaseline {
  /** Set once the first size finds no Python, no torch or no CUDA in it: the later sizes skip torch. */
  unavailable: string | undefined;
  torchVersion: string | undefined;
  private readonly where: string;
  private process: SidecarProcess;
  private readonly start: () => SidecarProcess;
  /** The pool's key: the same Python, script and GPU get the same sidecar. */
  private readonly key: string;
  /** This run has asked its sidecar (a sidecar asked before was kept by the pool from an earlier run). */
  private askedHere = false;

  constructor(
    private readonly job: BenchJob,
    private readonly spec: BenchSpec & { torch: NonNullable<BenchSpec["torch"]> },
    shownFile: string,
    private readonly device: DeviceAttributes,
    private readonly timing: TimingOptions,
  ) {
    const s = spec.torch.span;
    this.where = `${shownFile}:${s.startLine + 1}:${s.startColumn + 1}`;
    // `--device` lets it set up CUDA on the GPU while it waits for the first size.
    const python = job.pythonPath || "python3";
    const args = ["-u", sidecarPath(), "--device", String(device.ordinal)];
    this.key = JSON.stringify([python, ...args]);
    this.start = () =>
      new SidecarProcess(python, args, { tool: "the PyTorch baseline (python)", setting: PYTHON_SETTING });
    this.process = job.sidecars ? job.sidecars.acquire(this.key, this.start) : this.start();
  }

  /** The end of the run: the sidecar exits (or is killed), or goes back to the job's pool. */
  close(): Promise<void> {
    const pool = this.job.sidecars;
    if (!pool) return this.process.close();
    const cancelled = !!this.job.signal?.aborted;
    return pool.release(this.key, this.process, { keep: !cancelled && !this.unavailable, cancelled });
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

  /**
   * Asks the sidecar for size `p` (the kernel's outputs in `dir`) and removes `dir`. `offsetNs`: the
   * GPU's calibrated event overhead, taken off torch's times as off the kernel's (both are event spans).
   */
  async run(
    p: SizePoint,
    dir: string,
    kernel: PointResult,
    offsetNs?: number,
  ): Promise<TorchPointResult | undefined> {
    try {
      if (this.unavailable) return undefined;
      const response = await this.sidecar(p, dir);
      return response && this.result(response, p, kernel, offsetNs);
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
    const line = JSON.stringify(request);
    const reused = this.process.asked && !this.askedHere;
    this.askedHere = true;
    let r = await this.process.ask(line, SIDECAR_TIMEOUT_MS, this.job.signal);
    if (reused && "failed" in r && r.failed === "exited" && this.job.sidecars) {
      // The kept sidecar died while idle (killed, crashed) and the pool had not seen it yet: a new
      // one takes its place, as if none had been kept.
      this.process = this.job.sidecars.replace(this.process, this.start);
      r = await this.process.ask(line, SIDECAR_TIMEOUT_MS, this.job.signal);
    }
    if ("line" in r) return parsed(r.line);
    if ("launch" in r) {
      this.unavailable = r.launch.message;
      return undefined;
    }
    if (r.failed === "cancelled") throw new BenchError("CANCELLED", "cancelled");
    const why = r.failed === "timeout" ? `took over ${SIDECAR_TIMEOUT_MS / 1000} s: ${r.message}` : r.message;
    return { error: { kind: "internal", message: `the torch sidecar ${why}` } };
  }

  private result(
    r: TorchResponse,
    p: SizePoint,
    kernel: PointResult,
    offsetNs: number | undefined,
  ): TorchPointResult | undefined {
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
    const fix = (t: TorchStats): TorchStats => (offsetNs === undefined ? t : correctStats(t, offsetNs));
    const [e, c] = [fix(r.eager), r.compiled && fix(r.compiled)];
    const eager = { ...e, ...derive(e, p.bytes, p.flops, peak) };
    const compiled = c && { ...c, ...derive(c, p.bytes, p.flops, peak) };
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

/** The answer line; anything but JSON (a sidecar that is not ours) is the sidecar's failure. */
function parsed(line: string): TorchResponse {
  try {
    return JSON.parse(line) as TorchResponse;
  } catch {
    return { error: { kind: "internal", message: `the torch sidecar answered: ${line.slice(0, 200)}` } };
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
