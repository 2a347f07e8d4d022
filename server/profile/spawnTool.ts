// Runs a tool (ncu, nsys, nvcc, nvidia-smi) with an argument array, never a shell. Plain
// child_process: execa 9 is ESM-only and does not load in the CommonJS bundles and tests here.
import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";

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
}

/** Runs to completion; rejects only when the tool cannot start (ToolMissingError) or is cancelled. */
export function runTool(tool: string, args: string[], o: RunToolOptions = {}): Promise<ToolResult> {
  return new Promise((resolve, reject) => {
    if (o.signal?.aborted) {
      reject(new ToolCancelledError(tool));
      return;
    }
    const child = spawn(tool, args, {
      cwd: o.cwd,
      env: o.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
      ...(o.signal ? { signal: o.signal, killSignal: "SIGTERM" as const } : {}),
    });
    let output = "";
    let stdout = "";
    let stderr = "";
    const partial = { out: "", err: "" };
    const lines = (which: "out" | "err", text: string): void => {
      if (!o.onLine) return;
      const all = partial[which] + text;
      const parts = all.split(/\r?\n/);
      partial[which] = parts.pop() ?? "";
      for (const l of parts) o.onLine(l);
    };
    let fileDone: Promise<void> = Promise.resolve();
    if (o.stdoutFile) {
      const file = createWriteStream(o.stdoutFile);
      fileDone = new Promise((res) => file.on("close", () => res()));
      child.stdout.pipe(file);
    } else {
      child.stdout.setEncoding("utf8").on("data", (t: string) => {
        stdout += t;
        output += t;
        lines("out", t);
      });
    }
    child.stderr.setEncoding("utf8").on("data", (t: string) => {
      stderr += t;
      output += t;
      lines("err", t);
    });
    let failed: Error | undefined;
    child.on("error", (e: NodeJS.ErrnoException) => {
      if (e.name === "AbortError") failed = new ToolCancelledError(tool);
      else if (e.code === "ENOENT" || e.code === "EACCES") failed = new ToolMissingError(tool);
      else failed = e;
    });
    child.on("close", (exitCode, signal) => {
      if (o.onLine) {
        if (partial.out) o.onLine(partial.out);
        if (partial.err) o.onLine(partial.err);
      }
      void fileDone.then(() => {
        if (failed) reject(failed);
        else if (o.signal?.aborted) reject(new ToolCancelledError(tool));
        else resolve({ exitCode, signal, output, stdout, stderr });
      });
    });
  });
}
