// What each kind of build file says about the sources it builds: their backend, target architectures and
// the macros defined on the compiler's command line. Each file is read once (cached by path, size and
// mtime), so its notes are made once however many sources it builds.
import { readFileSync, statSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import { parse as parseToml } from "smol-toml";
import { errorMessage } from "../util/errorMessage";
import { parseArch } from "./arch";
import { cmakeCommands, pythonTokens, type CMakeArg } from "./buildSyntax";

export type Backend = "cuda" | "rocm" | "metal" | "xpu" | "cpu";
export type BuildKind = "build.toml" | "CMakeLists.txt" | "setup.py" | "compile_commands.json";

/** One thing a build file builds: a build.toml kernel, or the whole project for the other kinds. */
export interface BuildUnit {
  /** The build.toml kernel's name. */
  name?: string;
  backend: Backend;
  /** Absolute paths of the sources (files or folders) it lists; undefined: everything under the file's folder. */
  sources?: string[];
  /** Architectures it declares; undefined or empty when it declares none. */
  archs?: number[];
  /** Where the architectures came from when the build file does not list them (kernel-builder's defaults). */
  archsFrom?: string;
  /** Macros defined on the command line: name → value ("1" for a bare -DNAME). */
  defines: Map<string, string>;
  /** Macros undefined on the command line (-U). */
  undefines: Set<string>;
  /** A PyTorch extension build (setup.py with CUDAExtension): PyTorch's nvcc flags apply. */
  pytorch: boolean;
}

export interface BuildFileInfo {
  kind: BuildKind;
  file: string;
  units: BuildUnit[];
  /** What could not be read (e.g. "native" architectures), once per file. */
  notes: string[];
}

/**
 * kernel-builder's capabilities for a CUDA kernel whose build.toml lists no `cuda-capabilities`: "the
 * kernel will be built using all capabilities that the builder supports" (docs/writing-kernels.md),
 * which are build2cmake/src/cuda_supported_archs.json in huggingface/kernel-builder (January 2026).
 */
export const KERNEL_BUILDER_CAPABILITIES = [70, 72, 75, 80, 86, 87, 89, 90, 100, 101, 110, 120];

/**
 * torch.utils.cpp_extension.COMMON_NVCC_FLAGS: every CUDAExtension compiles with these. BF16 operators stay
 * enabled; BF16 conversions do not.
 */
export const PYTORCH_NVCC_DEFINES = [
  "__CUDA_NO_HALF_OPERATORS__",
  "__CUDA_NO_HALF_CONVERSIONS__",
  "__CUDA_NO_BFLOAT16_CONVERSIONS__",
  "__CUDA_NO_HALF2_OPERATORS__",
];

const BACKENDS: ReadonlySet<string> = new Set(["cuda", "rocm", "metal", "xpu", "cpu"]);

/** Keeps the architectures we can read; notes the others (native, all, a variable…) in one line. */
export function archTokens(tokens: readonly string[], where: string, notes: string[]): number[] {
  const out = new Set<number>();
  const unread = new Set<string>();
  for (const t of tokens.map((s) => s.trim()).filter((s) => s.length > 0)) {
    const sm = parseArch(t);
    if (sm !== undefined) out.add(sm);
    else unread.add(`"${t}"`);
  }
  if (unread.size > 0)
    notes.push(
      `${where}: ${[...unread].join(", ")} ${unread.size === 1 ? "is not a fixed architecture" : "are not fixed architectures"}; ignored`,
    );
  return [...out].sort((a, b) => a - b);
}

/** -DNAME[=value] and -UNAME in a list of flags (each may hold several, space-separated). */
export function macroFlags(
  flags: readonly string[],
  defines: Map<string, string>,
  undefines: Set<string>,
): void {
  for (const flag of flags.flatMap((f) => f.split(/\s+/))) {
    const d = /^-D([A-Za-z_]\w*)(?:=(.*))?$/.exec(flag);
    if (d) {
      defines.set(d[1]!, d[2] ?? "1");
      undefines.delete(d[1]!);
    }
    const u = /^-U([A-Za-z_]\w*)$/.exec(flag);
    if (u) {
      defines.delete(u[1]!);
      undefines.add(u[1]!);
    }
  }
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s) => typeof s === "string") : []);

/** kernel-builder's build.toml: one unit per `[kernel.NAME]`. */
function readBuildToml(file: string, text: string, notes: string[]): BuildUnit[] {
  const doc = parseToml(text);
  const kernels = doc.kernel !== null && typeof doc.kernel === "object" ? doc.kernel : {};
  const dir = dirname(file);
  // A [torch] section builds the kernels into a PyTorch extension (its binding in torch-ext/).
  const torchExt = doc.torch !== null && typeof doc.torch === "object";
  return Object.entries(kernels).map(([name, raw]): BuildUnit => {
    const k = (raw !== null && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
    // Older files say `language = "cuda-hipify"` and no backend: CUDA (hipified for ROCm as well).
    const backend =
      typeof k.backend === "string" && BACKENDS.has(k.backend) ? (k.backend as Backend) : "cuda";
    const listed = archTokens(strings(k["cuda-capabilities"]), `${file} [kernel.${name}]`, notes);
    const defines = new Map<string, string>();
    const undefines = new Set<string>();
    // kernel-builder's get_torch_gpu_compiler_flags (build2cmake/src/templates/utils.cmake) takes
    // PyTorch's nvcc flags, removes the four __CUDA_NO_HALF* switches and adds -DENABLE_FP8.
    if (backend === "cuda" && strings(k.depends).includes("torch")) defines.set("ENABLE_FP8", "1");
    macroFlags(strings(k["cuda-flags"]), defines, undefines);
    const useDefault = backend === "cuda" && listed.length === 0;
    return {
      name,
      backend,
      sources: strings(k.src).map((s) => resolve(dir, s)),
      archs: useDefault ? KERNEL_BUILDER_CAPABILITIES : listed,
      ...(useDefault ? { archsFrom: "kernel-builder's default capabilities" } : {}),
      defines,
      undefines,
      pytorch: torchExt || strings(k.depends).includes("torch"),
    };
  });
}

/** The values a CMake command gives CMAKE_CUDA_ARCHITECTURES or the CUDA_ARCHITECTURES property. */
function cmakeArchValues(name: string, args: readonly CMakeArg[]): string[] {
  const words = args.map((a) => a.text);
  const until = (from: number, stop: RegExp): string[] => {
    const rest = words.slice(from);
    const end = rest.findIndex((w) => stop.test(w));
    return end < 0 ? rest : rest.slice(0, end);
  };
  if (name === "set" && words[0] === "CMAKE_CUDA_ARCHITECTURES") return until(1, /^(?:CACHE|PARENT_SCOPE)$/);
  if (
    name === "list" &&
    /^(?:APPEND|PREPEND)$/.test(words[0] ?? "") &&
    words[1] === "CMAKE_CUDA_ARCHITECTURES"
  )
    return words.slice(2);
  if (name === "set_target_properties") {
    const at = words.indexOf("PROPERTIES");
    for (let i = at + 1; at >= 0 && i + 1 < words.length; i += 2)
      if (words[i] === "CUDA_ARCHITECTURES") return [words[i + 1]!];
  }
  if (name === "set_property") {
    const at = words.indexOf("PROPERTY");
    if (at >= 0 && words[at + 1] === "CUDA_ARCHITECTURES") return words.slice(at + 2);
  }
  return [];
}

const CUDA_FLAG_VARS: ReadonlySet<string> = new Set(["CMAKE_CUDA_FLAGS", "CUDA_NVCC_FLAGS"]);

/** The -D/-U flags a CMake command passes to CUDA compilations. */
function cmakeMacroFlags(name: string, args: readonly CMakeArg[]): string[] {
  const words = args.map((a) => a.text).filter((w) => !w.startsWith("$<"));
  switch (name) {
    case "add_compile_definitions":
      return words.map((w) => `-D${w}`);
    case "target_compile_definitions":
      return words
        .slice(1)
        .filter((w) => !/^(?:PUBLIC|PRIVATE|INTERFACE)$/.test(w))
        .map((w) => `-D${w.replace(/^-D/, "")}`);
    case "add_definitions":
    case "add_compile_options":
    case "target_compile_options":
      return words;
    case "set":
      return CUDA_FLAG_VARS.has(words[0] ?? "") ? words.slice(1) : [];
    case "string":
    case "list":
      return /^(?:APPEND|PREPEND)$/.test(words[0] ?? "") && CUDA_FLAG_VARS.has(words[1] ?? "")
        ? words.slice(2)
        : [];
    default:
      return [];
  }
}

/** CMake: the architectures any set()/list(APPEND)/property gives (every branch), and the -D flags. */
function readCMake(file: string, text: string, notes: string[]): BuildUnit[] {
  const values: string[] = [];
  const flags: string[] = [];
  for (const cmd of cmakeCommands(text)) {
    values.push(...cmakeArchValues(cmd.name, cmd.args).flatMap((v) => v.split(";")));
    flags.push(...cmakeMacroFlags(cmd.name, cmd.args));
  }
  const defines = new Map<string, string>();
  const undefines = new Set<string>();
  macroFlags(flags, defines, undefines);
  return [{ backend: "cuda", archs: archTokens(values, file, notes), defines, undefines, pytorch: false }];
}

/** setup.py: TORCH_CUDA_ARCH_LIST values it sets, arch and -D/-U flags in its string literals. */
function readSetupPy(file: string, text: string, notes: string[]): BuildUnit[] {
  const tokens = pythonTokens(text);
  const lists: string[] = [];
  tokens.forEach((t, i) => {
    if (t.kind !== "string" || t.text !== "TORCH_CUDA_ARCH_LIST") return;
    // environ["TORCH_CUDA_ARCH_LIST"] = "…", or setdefault("TORCH_CUDA_ARCH_LIST", "…")
    const [a, b, c] = tokens.slice(i + 1, i + 4);
    if (a?.text === "]" && b?.text === "=" && c?.kind === "string") lists.push(c.text);
    else if (a?.text === "," && b?.kind === "string") lists.push(b.text);
  });
  const literals = tokens.filter((t) => t.kind === "string").map((t) => t.text);
  const pytorch = tokens.some((t) => t.kind === "name" && /^(?:CUDAExtension|cpp_extension)$/.test(t.text));
  const defines = new Map<string, string>(pytorch ? PYTORCH_NVCC_DEFINES.map((d) => [d, "1"]) : []);
  const undefines = new Set<string>();
  macroFlags(literals, defines, undefines);
  const archs =
    lists.length > 0
      ? archTokens(
          lists.flatMap((l) => l.split(/[\s;,]+/)),
          file,
          notes,
        )
      : archsFromFlags(literals.join("\n"));
  return [{ backend: "cuda", archs, defines, undefines, pytorch }];
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

const commandFlags = (e: CompileCommand): string[] =>
  Array.isArray(e.arguments)
    ? e.arguments.map(String)
    : typeof e.command === "string"
      ? e.command.split(/\s+/)
      : [];

/** compile_commands.json: one unit per entry (its own flags), and one for the rest (every .cu's archs). */
function readCompileCommands(file: string, text: string): BuildUnit[] {
  const entries: unknown = JSON.parse(text);
  if (!Array.isArray(entries)) throw new Error("not a JSON array of compile commands");
  const typed = (entries as unknown[]).filter(
    (e): e is CompileCommand =>
      e !== null && typeof e === "object" && typeof (e as CompileCommand).file === "string",
  );
  const cuda = typed.filter((e) => /\.cuh?$/.test(String(e.file)));
  const units = typed.map((e): BuildUnit => {
    const flags = commandFlags(e);
    const defines = new Map<string, string>();
    const undefines = new Set<string>();
    macroFlags(flags, defines, undefines);
    const dir = typeof e.directory === "string" ? e.directory : dirname(file);
    const archs = archsFromFlags(flags.join(" "));
    return {
      backend: "cuda",
      sources: [resolve(dir, String(e.file))],
      archs,
      defines,
      undefines,
      pytorch: false,
    };
  });
  const all = archsFromFlags(cuda.flatMap(commandFlags).join(" "));
  units.push({ backend: "cuda", archs: all, defines: new Map(), undefines: new Set(), pytorch: false });
  return units;
}

const READERS: Record<BuildKind, (file: string, text: string, notes: string[]) => BuildUnit[]> = {
  "build.toml": readBuildToml,
  "CMakeLists.txt": readCMake,
  "setup.py": readSetupPy,
  "compile_commands.json": (file, text) => readCompileCommands(file, text),
};

const cache = new Map<string, { stamp: string; info: BuildFileInfo | undefined }>();

/** The build file at `file` read as `kind`; undefined when there is none. Cached until it changes on disk. */
export function readBuildFile(kind: BuildKind, file: string): BuildFileInfo | undefined {
  let stamp: string;
  try {
    const st = statSync(file);
    if (!st.isFile()) return undefined;
    stamp = `${st.size}:${st.mtimeMs}`;
  } catch {
    return undefined;
  }
  const hit = cache.get(file);
  if (hit?.stamp === stamp) return hit.info;
  const notes: string[] = [];
  let units: BuildUnit[] = [];
  try {
    units = READERS[kind](file, readFileSync(file, "utf8"), notes);
  } catch (err) {
    notes.push(`${file}: ${errorMessage(err).split("\n")[0]}`);
  }
  const info: BuildFileInfo = { kind, file, units, notes };
  cache.set(file, { stamp, info });
  return info;
}

const inside = (folder: string, path: string): boolean => {
  const rel = relative(folder, path);
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith(sep) && rel !== path);
};

/**
 * The unit that builds `source`: the one whose sources list it, else list its folder or a file in it (a
 * CUDA one first: a header listed by a CUDA kernel and its ROCm twin is compiled as CUDA). Undefined when
 * the file lists sources and none matches.
 */
export function unitFor(info: BuildFileInfo, source: string): BuildUnit | undefined {
  const listing = info.units.filter((u) => u.sources);
  const generic = info.units.filter((u) => !u.sources);
  const cudaFirst = (units: BuildUnit[]): BuildUnit | undefined =>
    units.find((u) => u.backend === "cuda") ?? units[0];
  const exact = listing.filter((u) => u.sources!.includes(source));
  if (exact.length > 0) return cudaFirst(exact);
  const folder = dirname(source);
  const near = listing.filter((u) => u.sources!.some((s) => dirname(s) === folder || inside(s, source)));
  if (near.length > 0 && info.kind === "build.toml") return cudaFirst(near);
  return generic[0];
}
