// Which architectures a file is built for: the setting, then the nearest build file of each kind, in
// the order build.toml, CMakeLists.txt, setup.py, $TORCH_CUDA_ARCH_LIST, compile_commands.json.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { parse as parseToml } from "smol-toml";
import { errorMessage } from "../util/errorMessage";
import { parseArch } from "./arch";

/** Where the target architectures in force came from, in the order they are looked for. */
export type TargetSource =
  | "setting"
  | "build.toml"
  | "CMakeLists.txt"
  | "setup.py"
  | "TORCH_CUDA_ARCH_LIST"
  | "compile_commands.json"
  | "cli"
  | "default";

export interface ResolvedTargets {
  /** SM numbers, ascending, never empty. */
  archs: number[];
  source: TargetSource;
  file?: string;
  /** Build files that named targets we could not read (e.g. "native"), or failed to parse. */
  notes: string[];
}

/** nvcc 13's own default when no -arch is given: what a plain build compiles for. */
export const DEFAULT_TARGETS = [75];

export interface TargetQuery {
  /** The file being linted (absolute). */
  file: string;
  /** Targets from the editor setting or the CLI's --arch (already parsed); win when non-empty. */
  explicit?: { archs: number[]; source: "setting" | "cli" };
  /** Do not look above this folder (the workspace root); default: the filesystem root. */
  stopAt?: string;
  env?: NodeJS.ProcessEnv;
}

type Reader = (file: string, text: string, notes: string[]) => number[];

/** The kinds of build file, in the order they are consulted. */
const READERS: { name: string; source: TargetSource; read: Reader }[] = [
  { name: "build.toml", source: "build.toml", read: readBuildToml },
  { name: "CMakeLists.txt", source: "CMakeLists.txt", read: readCMake },
  { name: "setup.py", source: "setup.py", read: readSetupPy },
];

export function resolveTargets(q: TargetQuery): ResolvedTargets {
  const notes: string[] = [];
  if (q.explicit && q.explicit.archs.length > 0)
    return { archs: q.explicit.archs, source: q.explicit.source, notes };
  const dirs = ancestors(dirname(resolve(q.file)), q.stopAt);
  for (const reader of READERS) {
    for (const dir of dirs) {
      const file = join(dir, reader.name);
      const archs = tryRead(file, reader.read, notes);
      if (archs && archs.length > 0) return { archs, source: reader.source, file, notes };
    }
  }
  const envList = (q.env ?? process.env).TORCH_CUDA_ARCH_LIST;
  if (envList) {
    const archs = fromTokens(envList.split(/[\s;,]+/), "$TORCH_CUDA_ARCH_LIST", notes);
    if (archs.length > 0) return { archs, source: "TORCH_CUDA_ARCH_LIST", notes };
  }
  for (const dir of dirs) {
    for (const file of [join(dir, "compile_commands.json"), join(dir, "build", "compile_commands.json")]) {
      const archs = tryRead(file, (f, text) => readCompileCommands(f, text, resolve(q.file)), notes);
      if (archs && archs.length > 0) return { archs, source: "compile_commands.json", file, notes };
    }
  }
  return { archs: DEFAULT_TARGETS, source: "default", notes };
}

function ancestors(start: string, stopAt: string | undefined): string[] {
  const stop = stopAt ? resolve(stopAt) : undefined;
  const out: string[] = [];
  for (let dir = start; ; dir = dirname(dir)) {
    out.push(dir);
    // Stop at the workspace root, and never climb out of it when the file lies inside.
    if (dir === stop || dirname(dir) === dir) break;
    if (stop && relative(stop, dir).startsWith("..")) break;
  }
  return out;
}

function tryRead(file: string, read: Reader, notes: string[]): number[] | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return read(file, readFileSync(file, "utf8"), notes);
  } catch (err) {
    notes.push(`${file}: ${errorMessage(err)}`);
    return undefined;
  }
}

/** Keeps the entries we can read; says which we skipped (native, all, …). */
function fromTokens(tokens: readonly string[], where: string, notes: string[]): number[] {
  const out = new Set<number>();
  for (const t of tokens.map((s) => s.trim()).filter((s) => s.length > 0)) {
    const sm = parseArch(t);
    if (sm === undefined) notes.push(`${where}: "${t}" is not a fixed architecture; ignored`);
    else out.add(sm);
  }
  return [...out].sort((a, b) => a - b);
}

/** kernel-builder's build.toml: every `cuda-capabilities = ["7.5", "8.0", ...]` in any table. */
function readBuildToml(file: string, text: string, notes: string[]): number[] {
  const caps: string[] = [];
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v !== null && typeof v === "object") {
      for (const [k, child] of Object.entries(v)) {
        if (k === "cuda-capabilities" && Array.isArray(child)) caps.push(...child.map(String));
        else visit(child);
      }
    }
  };
  visit(parseToml(text));
  return fromTokens(caps, file, notes);
}

/** `set(CMAKE_CUDA_ARCHITECTURES 75 80)`, `CUDA_ARCHITECTURES "80;90a"` in set_target_properties, -D defaults. */
function readCMake(file: string, text: string, notes: string[]): number[] {
  const code = text.replace(/#[^\n]*/g, "");
  const tokens: string[] = [];
  const re = /\b(?:CMAKE_)?CUDA_ARCHITECTURES\b((?:\s+(?:"[^"]*"|[^\s()"$]+))+)/g;
  for (const m of code.matchAll(re)) {
    for (const tok of (m[1] ?? "").trim().split(/\s+/)) {
      const value = tok.replace(/^"|"$/g, "");
      if (/^(?:CACHE|STRING|PROPERTIES|FORCE|PARENT_SCOPE)$/.test(value)) break;
      tokens.push(...value.split(";"));
    }
  }
  return fromTokens(tokens, file, notes);
}

/** setup.py: a TORCH_CUDA_ARCH_LIST it sets, or nvcc flags it passes (-gencode, -arch). */
function readSetupPy(file: string, text: string, notes: string[]): number[] {
  const list = /TORCH_CUDA_ARCH_LIST["']?\s*\]?\s*(?:=|,)\s*["']([^"']+)["']/.exec(text);
  if (list?.[1]) return fromTokens(list[1].split(/[\s;,]+/), file, notes);
  return archsFromFlags(text);
}

/** nvcc/clang flags in free text: -gencode arch=compute_80,code=sm_80, -arch=sm_90, --cuda-gpu-arch=sm_80. */
export function archsFromFlags(text: string): number[] {
  const out = new Set<number>();
  for (const m of text.matchAll(/code=\[?([\w,]+)\]?/g))
    for (const c of (m[1] ?? "").split(",")) {
      const sm = /^sm_\d+[af]?$/.test(c) ? parseArch(c) : undefined;
      if (sm !== undefined) out.add(sm);
    }
  const archFlag =
    /(?:^|[\s"'])(?:-arch|--gpu-architecture|--cuda-gpu-arch|--offload-arch)(?:=|\s+)["']?((?:sm|compute)_\d+[af]?)/g;
  for (const m of text.matchAll(archFlag)) {
    const sm = parseArch(m[1] ?? "");
    if (sm !== undefined) out.add(sm);
  }
  return [...out].sort((a, b) => a - b);
}

interface CompileCommand {
  directory?: unknown;
  file?: unknown;
  command?: unknown;
  arguments?: unknown;
}

/** The entry for this file if there is one, else every entry of a .cu file (one project, one arch set). */
function readCompileCommands(file: string, text: string, target: string): number[] {
  const entries: unknown = JSON.parse(text);
  if (!Array.isArray(entries)) throw new Error("not a JSON array of compile commands");
  const flags = (e: CompileCommand): string =>
    Array.isArray(e.arguments)
      ? e.arguments.map(String).join(" ")
      : typeof e.command === "string"
        ? e.command
        : "";
  const typed = entries.filter((e): e is CompileCommand => e !== null && typeof e === "object");
  const own = typed.filter(
    (e) =>
      typeof e.file === "string" &&
      resolve(typeof e.directory === "string" ? e.directory : dirname(file), e.file) === target,
  );
  const pick =
    own.length > 0 ? own : typed.filter((e) => typeof e.file === "string" && /\.cuh?$/.test(e.file));
  return archsFromFlags(pick.map(flags).join("\n"));
}
