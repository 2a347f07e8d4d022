// One file compiled for each target architecture: diagnostics placed on files and lines, and each
// kernel's resources. Shared by `cuda-kernel-dev resources`, the extension's on-save check and its
// resource lenses, so the three always agree.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import {
  findCompileCommands,
  flagsFromCompileCommands,
  nvccArgs,
  runNvcc,
  type NvccRun,
  type ProjectFlags,
} from "./nvcc";
import { parseNvccOutput } from "./nvccDiagnostics";
import { findKernelLine, placeDiagnostics, type PlacedDiagnostic } from "./nvccPlacement";
import { parsePtxasResources, type KernelResources } from "./ptxasResources";

export interface FlagSettings {
  /** cudaKernelDev.nvcc.includePaths: relative ones are relative to the workspace folder. */
  includePaths: string[];
  /** cudaKernelDev.nvcc.extraArgs, passed as they are. */
  extraArgs: string[];
}

/**
 * The project's flags for `file`: compile_commands.json (in an ancestor folder or its build/) when it
 * has an entry for the file, plus the settings' include paths and extra arguments.
 */
export function projectFlags(file: string, settings: FlagSettings, workspaceFolder?: string): ProjectFlags {
  const base = workspaceFolder ?? dirname(file);
  const fromSettings = [...settings.includePaths.map((p) => `-I${resolve(base, p)}`), ...settings.extraArgs];
  let dir = dirname(resolve(file));
  const stop = workspaceFolder ? resolve(workspaceFolder) : undefined;
  for (;;) {
    const cc = findCompileCommands(dir);
    if (cc) {
      const flags = flagsFromCompileCommands(cc, file);
      if (flags) return { ...flags, args: [...flags.args, ...fromSettings] };
    }
    const up = dirname(dir);
    if (up === dir || dir === stop) break;
    dir = up;
  }
  return { args: fromSettings, cwd: dirname(resolve(file)), from: "settings" };
}

export interface CompileRequest {
  file: string;
  archs: string[];
  nvcc: string;
  flags: ProjectFlags;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Editor buffers that differ from the disk, by absolute path, for placing ranges. */
  readText?: (file: string) => string | undefined;
}

export interface ArchCompile {
  arch: string;
  run: NvccRun;
  diagnostics: PlacedDiagnostic[];
  kernels: KernelResources[];
}

/** A file's text, or undefined when it cannot be read. */
export const readTextFile = (f: string): string | undefined => {
  try {
    return readFileSync(f, "utf8");
  } catch {
    return undefined;
  }
};

/** Compiles for each architecture, two at a time (editor machines are small). */
export async function compileForArchs(req: CompileRequest): Promise<ArchCompile[]> {
  const file = resolve(req.file);
  const results: ArchCompile[] = new Array<ArchCompile>(req.archs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < req.archs.length) {
      const i = next++;
      const arch = req.archs[i]!;
      const run = await runNvcc(req.nvcc, nvccArgs("check", file, arch, req.flags.args), {
        cwd: req.flags.cwd,
        timeoutMs: req.timeoutMs,
        ...(req.signal ? { signal: req.signal } : {}),
      });
      const diagnostics = run.cancelled
        ? []
        : placeDiagnostics(parseNvccOutput(run.output), {
            cwd: req.flags.cwd,
            mainFile: file,
            readText: req.readText ?? readTextFile,
            arch,
          });
      // A failed run that said nothing we recognise still has to show up, with what it did say.
      if (
        !run.cancelled &&
        !run.timedOut &&
        run.exitCode !== 0 &&
        !diagnostics.some((d) => d.severity === "error")
      ) {
        const said = run.output.trim().split(/\r?\n/).filter(Boolean).slice(-3).join(" / ");
        diagnostics.push({
          file,
          range: { startLine: 0, startColumn: 0, endLine: 0, endColumn: 0 },
          severity: "error",
          message: `${arch}: nvcc failed (exit ${String(run.exitCode)})${said ? `: ${said}` : " without output"}`,
          source: "driver",
          related: [],
        });
      }
      results[i] = { arch, run, diagnostics, kernels: run.cancelled ? [] : parsePtxasResources(run.output) };
    }
  };
  await Promise.all([worker(), worker()]);
  return results;
}

/** The diagnostics of all architectures, each once: a front-end error repeats per architecture. */
export function mergeDiagnostics(results: ArchCompile[]): PlacedDiagnostic[] {
  const seen = new Set<string>();
  const out: PlacedDiagnostic[] = [];
  for (const r of results) {
    for (const d of r.diagnostics) {
      const key = `${d.file}\0${d.range.startLine}\0${d.range.startColumn}\0${d.severity}\0${d.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(d);
    }
  }
  return out;
}

/** A warning on the kernel's definition for each kernel and architecture where ptxas spilled registers. */
export function spillWarnings(file: string, text: string, results: ArchCompile[]): PlacedDiagnostic[] {
  const lines = text.split(/\r?\n/);
  const out: PlacedDiagnostic[] = [];
  for (const r of results) {
    for (const k of r.kernels) {
      if (k.spillStoreBytes + k.spillLoadBytes === 0) continue;
      const line = findKernelLine(text, k.symbol) ?? 0;
      const lineText = lines[line] ?? "";
      const base = k.name.replace(/<.*$/, "").split("::").pop() ?? k.name;
      const at = Math.max(0, lineText.indexOf(base));
      out.push({
        file,
        range: {
          startLine: line,
          startColumn: at,
          endLine: line,
          endColumn: lineText.indexOf(base) >= 0 ? at + base.length : lineText.length,
        },
        severity: "warning",
        message: `${r.arch}: ${k.name} spills registers to local memory: ${k.spillStoreBytes} B stores, ${k.spillLoadBytes} B loads (${k.registers} registers, ${k.stackFrameBytes} B stack frame)`,
        code: "register-spill",
        source: "ptxas",
        related: [],
      });
    }
  }
  return out;
}
