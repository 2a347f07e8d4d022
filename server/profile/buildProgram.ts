// Builds a .cu program (one with a main() that launches the kernel) with -lineinfo, so Nsight
// Compute's source page can map samples to lines. The simplest real harness: the user's own.
import { mkdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { runTool, ToolMissingError } from "./spawnTool";

export class BuildProgramError extends Error {
  constructor(
    message: string,
    readonly code: "NO_MAIN" | "NVCC_MISSING" | "COMPILE",
  ) {
    super(message);
    this.name = "BuildProgramError";
  }
}

export const hasMain = (text: string): boolean => /\bint\s+main\s*\(/.test(text);

export function buildArgs(file: string, exe: string, arch?: string): string[] {
  return ["-O3", "-lineinfo", `-arch=${arch ?? "native"}`, "-o", exe, file];
}

/** Compiles `file` into `outDir`; returns the executable's path. */
export async function buildProgram(
  nvcc: string,
  file: string,
  outDir: string,
  arch?: string,
  signal?: AbortSignal,
): Promise<string> {
  if (!hasMain(await readFile(file, "utf8")))
    throw new BuildProgramError(
      `${file} has no main(): profile a program that launches the kernel, or give the command that runs it`,
      "NO_MAIN",
    );
  await mkdir(outDir, { recursive: true });
  const exe = join(outDir, basename(file).replace(/\.cu$/, ""));
  let r;
  try {
    r = await runTool(nvcc, buildArgs(file, exe, arch), {
      privateTmpDir: true,
      ...(signal ? { signal } : {}),
    });
  } catch (e) {
    if (e instanceof ToolMissingError)
      throw new BuildProgramError(`nvcc not found ("${nvcc}")`, "NVCC_MISSING");
    throw e;
  }
  if (r.exitCode !== 0)
    throw new BuildProgramError(
      `nvcc failed (exit ${r.exitCode}): ${r.output.trim().split("\n").slice(-5).join(" | ")}`,
      "COMPILE",
    );
  return exe;
}
