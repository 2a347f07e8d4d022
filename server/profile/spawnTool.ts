// Runs a tool (ncu, nsys, nvidia-smi) through the process launcher (server/process/launch.ts:
// argument arrays, no shell, the workspace-trust policy), keeping this module's contract: a tool
// that cannot start is a ToolMissingError, a cancelled one a ToolCancelledError.
import { LaunchError, runProcess } from "../process/launch";

export interface ToolResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** stdout (empty when it went to a file) and stderr, interleaved as they arrived. */
  output: string;
  stdout: string;
  stderr: string;
}

export class ToolMissingError extends Error {
  constructor(readonly tool: string) {
    super(`"${tool}" was not found or is not executable`);
    this.name = "ToolMissingError";
  }
}

export class ToolCancelledError extends Error {
  constructor(readonly tool: string) {
    super(`${tool} was cancelled`);
    this.name = "ToolCancelledError";
  }
}

export interface RunToolOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Write stdout to this file instead of keeping it. */
  stdoutFile?: string;
  /** Called with each complete output line (stdout and stderr). */
  onLine?: (line: string) => void;
  /** A private TMPDIR removed after the run (nvcc's intermediate files). */
  privateTmpDir?: boolean;
}

/**
 * Runs to completion; rejects only when the tool cannot start (ToolMissingError), is cancelled, is
 * refused by the launch policy (LaunchError "DENIED", in an untrusted workspace) or its stdoutFile
 * cannot be written (LaunchError "OUTPUT_NOT_WRITTEN").
 */
export async function runTool(tool: string, args: string[], o: RunToolOptions = {}): Promise<ToolResult> {
  if (o.signal?.aborted) throw new ToolCancelledError(tool);
  let r;
  try {
    r = await runProcess(tool, args, {
      tool,
      ...(o.cwd !== undefined ? { cwd: o.cwd } : {}),
      ...(o.env !== undefined ? { env: o.env } : {}),
      ...(o.signal !== undefined ? { signal: o.signal } : {}),
      ...(o.stdoutFile !== undefined ? { stdoutFile: o.stdoutFile } : {}),
      ...(o.onLine !== undefined ? { onLine: o.onLine } : {}),
      ...(o.privateTmpDir ? { privateTmpDir: true } : {}),
    });
  } catch (e) {
    if (e instanceof LaunchError && (e.code === "NOT_FOUND" || e.code === "NOT_EXECUTABLE"))
      throw new ToolMissingError(tool);
    throw e;
  }
  if (r.cancelled) throw new ToolCancelledError(tool);
  return { exitCode: r.exitCode, signal: r.signal, output: r.output, stdout: r.stdout, stderr: r.stderr };
}
