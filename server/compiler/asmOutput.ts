// PTX or SASS text for a file and architecture, for the PTX/SASS view: PTX from nvcc -ptx -lineinfo;
// SASS from a -lineinfo cubin through nvdisasm -g -c (source lines) or, failing that, cuobjdump -sass.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { findToolNextTo, nvccArgs, runNvcc, type ProjectFlags } from "./nvcc";
import { parseNvccOutput } from "./nvccDiagnostics";

export type AsmKind = "ptx" | "sass";

/** A failure the person can act on (the file does not compile, a tool is missing); shown as it is. */
export class AsmToolError extends Error {
  override name = "AsmToolError";
}

export interface AsmRequest {
  kind: AsmKind;
  file: string;
  arch: string;
  nvcc: string;
  flags: ProjectFlags;
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
}

export interface AsmOutput {
  text: string;
  /** The tool that produced the text: "nvcc", "nvdisasm" or "cuobjdump". */
  tool: string;
}

export async function asmOutput(req: AsmRequest): Promise<AsmOutput> {
  const dir = mkdtempSync(join(tmpdir(), "cuda-kernel-dev-asm-"));
  try {
    const compile = async (args: string[]): Promise<void> => {
      const run = await runNvcc(req.nvcc, args, { cwd: req.flags.cwd, timeoutMs: req.timeoutMs });
      if (run.exitCode === 0) return;
      const first = parseNvccOutput(run.output).find((d) => d.severity === "error");
      throw new AsmToolError(
        first
          ? `nvcc: ${first.file ? `${basename(first.file)}(${first.line ?? "?"}): ` : ""}${first.message.split("\n")[0]}`
          : `nvcc failed (exit ${String(run.exitCode)})${run.timedOut ? ", timed out" : ""}`,
      );
    };
    if (req.kind === "ptx") {
      const out = join(dir, "out.ptx");
      await compile(nvccArgs("ptx", req.file, req.arch, req.flags.args, out));
      return { text: readFileSync(out, "utf8"), tool: "nvcc" };
    }
    const nvdisasm = await findToolNextTo(req.nvcc, "nvdisasm", req.env);
    const cuobjdump = nvdisasm ? undefined : await findToolNextTo(req.nvcc, "cuobjdump", req.env);
    const tool = nvdisasm ?? cuobjdump;
    if (!tool)
      throw new AsmToolError(
        `SASS needs nvdisasm or cuobjdump from the CUDA toolkit; neither is next to ${req.nvcc} or on PATH. PTX works without them.`,
      );
    const cubin = join(dir, "out.cubin");
    await compile(["-cubin", "-lineinfo", `-arch=${req.arch}`, ...req.flags.args, "-o", cubin, req.file]);
    const run = await runNvcc(tool, nvdisasm ? ["-g", "-c", cubin] : ["-sass", cubin], {
      cwd: dir,
      timeoutMs: req.timeoutMs,
    });
    if (run.exitCode !== 0)
      throw new AsmToolError(`${basename(tool)} failed: ${run.output.trim().split("\n")[0] ?? ""}`);
    return { text: run.output, tool: basename(tool) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
