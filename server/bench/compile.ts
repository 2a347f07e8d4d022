// nvcc -> cubin for one GPU architecture, cached by content: the key covers the harness, flags,
// architecture and nvcc version; a hit also needs every file the last compile read (nvcc -MD) to be
// byte-identical, so an edit to an included header recompiles and nothing else does.
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { runNvcc } from "../compiler/nvcc";
import { parsePtxasResources, type KernelResources } from "../compiler/ptxasResources";

export class CompileError extends Error {
  constructor(
    message: string,
    /** "NVCC_NOT_FOUND", "NVCC_FAILED", "CANCELLED" */
    readonly code: string,
    /** nvcc's full output, for an output channel. */
    readonly log = "",
  ) {
    super(message);
    this.name = "CompileError";
  }
}

const versions = new Map<string, Promise<string>>();

/** `release 13.0, V13.0.88`, once per nvcc binary (path + mtime). */
export async function nvccVersion(nvcc: string): Promise<string> {
  const s = await stat(nvcc);
  const key = `${nvcc}:${s.mtimeMs}:${s.size}`;
  let v = versions.get(key);
  if (!v) {
    v = runNvcc(nvcc, ["--version"], { cwd: process.cwd(), timeoutMs: 30_000 }).then((r) => {
      const m = /release [^\n]*/.exec(r.output);
      if (r.exitCode !== 0 || !m)
        throw new CompileError(`${nvcc} --version failed: ${r.output}`, "NVCC_FAILED");
      return m[0].trim();
    });
    versions.set(key, v);
    v.catch(() => versions.delete(key));
  }
  return v;
}

export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "cuda-kernel-dev", "cubin");
}

export interface CompileRequest {
  /** The harness translation unit (see harness.ts). */
  harness: string;
  nvcc: string;
  /** e.g. "sm_90" */
  arch: string;
  /** User flags (compileFlags.ts); ours are added. */
  flags: string[];
  /** Where relative paths in `flags` resolve (the compile_commands.json entry's directory). */
  cwd: string;
  cacheDir: string;
  /** A compile that runs longer is stopped (ms). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface CompileResult {
  cubinPath: string;
  cached: boolean;
  /** Wall time of this call (lookup, or lookup + nvcc). */
  ms: number;
  /** Entry kernels with their resource usage, from ptxas -v. */
  kernels: KernelResources[];
  /** nvcc's warnings and ptxas info, from the compile that produced the cubin. */
  log: string;
  key: string;
}

interface Manifest {
  version: 1;
  deps: [string, string][];
  kernels: KernelResources[];
  log: string;
}

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

async function hashFile(p: string): Promise<string | undefined> {
  try {
    return sha256(await readFile(p));
  } catch {
    return undefined;
  }
}

/** The prerequisites of a Make rule written by `nvcc -MD -MF`. */
export function parseDepFile(text: string): string[] {
  const joined = text.replace(/\\\r?\n/g, " ");
  const colon = joined.search(/:(\s|$)/);
  if (colon < 0) return [];
  const deps: string[] = [];
  let cur = "";
  const body = joined.slice(colon + 1);
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === "\\" && body[i + 1] === " ") {
      cur += " ";
      i++;
    } else if (c === "$" && body[i + 1] === "$") {
      cur += "$";
      i++;
    } else if (/\s/.test(c)) {
      if (cur) deps.push(cur);
      cur = "";
    } else cur += c;
  }
  if (cur) deps.push(cur);
  return [...new Set(deps)];
}

async function lookup(dir: string): Promise<Manifest | undefined> {
  let m: Manifest;
  try {
    m = JSON.parse(await readFile(join(dir, "manifest.json"), "utf8")) as Manifest;
  } catch {
    return undefined;
  }
  if (m.version !== 1 || !Array.isArray(m.deps)) return undefined;
  const hashes = await Promise.all(m.deps.map(([p]) => hashFile(p)));
  return hashes.every((h, i) => h === m.deps[i]![1]) ? m : undefined;
}

/** Compiles (or finds in the cache) the harness into a cubin for `arch`. */
export async function compileCubin(req: CompileRequest): Promise<CompileResult> {
  const started = performance.now();
  const version = await nvccVersion(req.nvcc);
  const key = sha256(
    JSON.stringify({
      v: 1,
      harness: req.harness,
      arch: req.arch,
      flags: req.flags,
      cwd: req.cwd,
      nvcc: req.nvcc,
      version,
    }),
  );
  const dir = join(req.cacheDir, key.slice(0, 32));
  const cubinPath = join(dir, "kernel.cubin");
  const hit = await lookup(dir);
  if (hit)
    return {
      cubinPath,
      cached: true,
      ms: performance.now() - started,
      kernels: hit.kernels,
      log: hit.log,
      key,
    };

  await mkdir(dir, { recursive: true });
  const harnessPath = join(dir, "harness.cu");
  await writeFile(harnessPath, req.harness);
  // Unique temporaries, renamed into place: two compiles of one key never see half a file.
  const tag = `${process.pid}-${randomBytes(4).toString("hex")}`;
  const tmpCubin = join(dir, `kernel.${tag}.cubin`);
  const tmpDeps = join(dir, `deps.${tag}.d`);
  const args = [
    "-cubin",
    `-arch=${req.arch}`,
    "-lineinfo",
    "-Xptxas",
    "-v",
    "-MD",
    "-MF",
    tmpDeps,
    ...req.flags,
    harnessPath,
    "-o",
    tmpCubin,
  ];
  const r = await runNvcc(req.nvcc, args, {
    cwd: req.cwd,
    timeoutMs: req.timeoutMs ?? 300_000,
    ...(req.signal ? { signal: req.signal } : {}),
  });
  const log = r.output;
  try {
    if (r.cancelled) throw new CompileError("the compile was cancelled", "CANCELLED", log);
    if (r.timedOut)
      throw new CompileError(
        `nvcc ran longer than ${(req.timeoutMs ?? 300_000) / 1000} s and was stopped`,
        "NVCC_FAILED",
        log,
      );
    if (r.exitCode !== 0) {
      const errors = log
        .split("\n")
        .filter((l) => /\berror\b/i.test(l))
        .slice(0, 3)
        .join("; ");
      throw new CompileError(
        `nvcc failed (exit ${r.exitCode ?? "signal"}): ${errors || log.trim().split("\n").pop()}`,
        "NVCC_FAILED",
        log,
      );
    }
    const depPaths = parseDepFile(await readFile(tmpDeps, "utf8"));
    const deps: [string, string][] = [];
    for (const p of depPaths) {
      const abs = resolve(req.cwd, p);
      const h = await hashFile(abs);
      if (h) deps.push([abs, h]);
    }
    const kernels = parsePtxasResources(log);
    const manifest: Manifest = { version: 1, deps, kernels, log };
    await rename(tmpCubin, cubinPath);
    const tmpManifest = join(dir, `manifest.${tag}.json`);
    await writeFile(tmpManifest, JSON.stringify(manifest));
    await rename(tmpManifest, join(dir, "manifest.json"));
    return { cubinPath, cached: false, ms: performance.now() - started, kernels, log, key };
  } finally {
    await rm(tmpDeps, { force: true });
    await rm(tmpCubin, { force: true });
  }
}
