// Stage 2 of a benchmark: what this machine has for it (NVIDIA driver, the GPU asked for, nvcc),
// everything checked before failing so that one message names all that is missing; and the versions
// a result records about where it ran.
import { hostname } from "node:os";
import type { DeviceAttributes } from "../../native/runner/protocol";
import { resolveNvcc } from "../compiler/nvcc";
import { runProcess } from "../process/launch";
import { errorMessage } from "../util/errorMessage";
import { BenchError, type BenchJob, isRunnerError, rethrowCancelled, signalOf } from "./benchJob";
import { nvccVersion } from "./compile";
import type { EnvironmentInfo } from "./results";

export interface BenchEnvironment {
  device: DeviceAttributes;
  driverVersion: number | null;
  /** The nvcc binary to compile with. */
  nvcc: string;
}

/** The driver and the job's GPU, as the runner sees them; what is missing is added to `missing`. */
async function findGpu(
  job: BenchJob,
  missing: string[],
): Promise<{ device?: DeviceAttributes; driverVersion: number | null }> {
  let driverVersion: number | null = null;
  try {
    const hello = await job.runner.request("hello", {}, signalOf(job));
    driverVersion = hello.driverVersion;
    if (hello.error) {
      missing.push(
        hello.error.code === "NO_DRIVER" ? `no NVIDIA driver (${hello.error.message})` : hello.error.message,
      );
      return { driverVersion };
    }
    const devices = await job.runner.request("devices", {}, signalOf(job));
    const ordinal = job.device ?? 0;
    const device = devices.find((d) => d.ordinal === ordinal);
    if (devices.length === 0) missing.push("no CUDA GPU (the driver found none)");
    else if (!device) missing.push(`no GPU ${ordinal} (found ${devices.length})`);
    return { ...(device ? { device } : {}), driverVersion };
  } catch (e) {
    rethrowCancelled(e);
    if (isRunnerError(e) && e.code === "NO_DRIVER") missing.push(`no NVIDIA driver (${e.message})`);
    else if (isRunnerError(e) && e.code === "CUDA_ERROR_NO_DEVICE")
      missing.push(`no CUDA GPU (${e.message})`);
    else missing.push(`the GPU runner failed (${errorMessage(e)})`);
    return { driverVersion };
  }
}

/** The GPU, driver and nvcc to benchmark with; a MISSING error naming all that is not there. */
export async function checkEnvironment(job: BenchJob): Promise<BenchEnvironment> {
  const missing: string[] = [];
  const { device, driverVersion } = await findGpu(job, missing);
  let nvcc: string | undefined;
  try {
    nvcc = await resolveNvcc(job.nvccPath);
  } catch (e) {
    missing.push(errorMessage(e));
  }
  if (missing.length > 0 || !device || !nvcc)
    throw new BenchError("MISSING", `cannot benchmark here: ${missing.join("; ")}`);
  return { device, driverVersion, nvcc };
}

/** git's stdout, or undefined when git is missing, refused, fails or takes over 5 s. */
async function git(dir: string, args: string[]): Promise<string | undefined> {
  try {
    const r = await runProcess("git", ["-C", dir, ...args], { tool: "git", timeoutMs: 5000 });
    return r.exitCode === 0 ? r.stdout.trim() : undefined;
  } catch {
    return undefined;
  }
}

async function gitCommit(dir: string): Promise<string | undefined> {
  const head = await git(dir, ["rev-parse", "HEAD"]);
  const dirty = head && (await git(dir, ["status", "--porcelain", "--untracked-files=no"]));
  return head && dirty !== undefined ? head + (dirty ? "+dirty" : "") : undefined;
}

/** What a result records about where it ran: the environment, nvcc's version, the source's commit. */
export async function environmentInfo(env: BenchEnvironment, sourceDir: string): Promise<EnvironmentInfo> {
  const [nvccV, commit] = await Promise.all([nvccVersion(env.nvcc), gitCommit(sourceDir)]);
  return {
    device: env.device,
    driverVersion: env.driverVersion,
    nvccVersion: nvccV,
    ...(commit ? { gitCommit: commit } : {}),
    host: hostname(),
  };
}
