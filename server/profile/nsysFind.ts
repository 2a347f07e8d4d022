// Where nsys is, as users install it: the setting (cudaKernelDev.nsys.path, or the CLI's --nsys),
// then PATH, then the usual install folders: Nsight Systems' own (/opt/nvidia/nsight-systems/VER/bin),
// the copy the CUDA toolkit bundles (/usr/local/cuda*/nsight-systems-VER/bin, /usr/local/cuda/bin),
// and the one inside Nsight Compute (/opt/nvidia/nsight-compute/VER/host/target-linux-x64), which
// is the only one on our GPU machine. Newest version first within each folder.
import { accessSync, constants, readdirSync } from "node:fs";
import { delimiter, join } from "node:path";

export interface FindNsysOptions {
  /** The setting's value; used as is when set, so a wrong one is reported, not silently replaced. */
  configured?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** For tests: the file system's answers. */
  isExecutable?: (path: string) => boolean;
  listDir?: (dir: string) => string[];
}

const EXE = process.platform === "win32" ? "nsys.exe" : "nsys";

function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Folder names by version, newest first ("2025.3.1" before "2024.6.2"). */
const newestFirst = (a: string, b: string): number => b.localeCompare(a, undefined, { numeric: true });

/** Every place looked at, in order (for the "not found" message too). */
export function nsysCandidates(o: FindNsysOptions = {}): string[] {
  const env = o.env ?? process.env;
  const ls = o.listDir ?? list;
  const out: string[] = [];
  for (const dir of (env.PATH ?? "").split(delimiter)) if (dir) out.push(join(dir, EXE));
  const versions = (parent: string, match: RegExp = /./): string[] =>
    ls(parent)
      .filter((d) => match.test(d))
      .sort(newestFirst)
      .map((d) => join(parent, d));
  for (const v of versions("/opt/nvidia/nsight-systems")) {
    out.push(join(v, "bin", EXE), join(v, "target-linux-x64", EXE));
  }
  const cudaRoots = [
    ...(env.CUDA_HOME ? [env.CUDA_HOME] : []),
    ...(env.CUDA_PATH ? [env.CUDA_PATH] : []),
    "/usr/local/cuda",
    ...versions("/usr/local", /^cuda-\d/),
  ];
  for (const root of cudaRoots) {
    for (const v of versions(root, /^nsight-systems-/)) out.push(join(v, "bin", EXE));
    out.push(join(root, "bin", EXE));
  }
  for (const v of versions("/opt/nvidia/nsight-compute")) out.push(join(v, "host", "target-linux-x64", EXE));
  return [...new Set(out)];
}

/** The nsys to run: the setting when given, else the first executable candidate, else undefined. */
export function findNsys(o: FindNsysOptions = {}): string | undefined {
  const configured = o.configured?.trim();
  // The setting's default is the bare name "nsys": that means "look it up", not "only on PATH".
  if (configured && configured !== "nsys" && configured !== EXE) return configured;
  const ok = o.isExecutable ?? executable;
  return nsysCandidates(o).find(ok);
}

/** Where findNsys looks, for "not found" messages. */
export const NSYS_SEARCHED =
  "PATH, /opt/nvidia/nsight-systems/*/bin, the CUDA toolkit and Nsight Compute's folder";
