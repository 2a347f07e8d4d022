// What the build readers share: the unit a build file builds, compiler flags read as macros and
// architectures, macro states of exclusive branches merged, and which backend a build switch names.
// It reads flags as written: a value the build computes at run time is unknown here, never guessed.
import { resolve } from "node:path";
import { parseArch } from "./arch";

export type Backend = "cuda" | "rocm" | "metal" | "xpu" | "cpu";
export type BuildKind =
  | "build.toml"
  | "CMakeLists.txt"
  | "setup.py"
  | "cpp_extension.load"
  | "op_builder"
  | "compile_commands.json";

/** One thing a build file builds: a build.toml kernel, or the whole project for the other kinds. */
export interface BuildUnit {
  /** The build.toml kernel's name. */
  name?: string;
  backend: Backend;
  /** Absolute paths of the sources (files or folders) it lists; undefined: everything under the file's folder. */
  sources?: string[];
  /** Architectures it declares; undefined or empty when it declares none. */
  archs?: number[];
  /** Where the architectures came from: kernel-builder's defaults, or the variables and flags that gave them. */
  archsFrom?: string;
  /** False when the architectures are not the project's own choice (kernel-builder's defaults). */
  archsDeclared?: boolean;
  /** Macros defined on the command line: name → value ("1" for a bare -DNAME). */
  defines: Map<string, string>;
  /** Macros undefined on the command line (-U). */
  undefines: Set<string>;
  /** A PyTorch extension build (setup.py with CUDAExtension): PyTorch's nvcc flags apply. */
  pytorch: boolean;
  /** The include directories it gives the compiler (absolute): where `#include` looks besides the file's folder. */
  includeDirs?: string[];
  /** Where flags come from that we cannot read (a helper outside the project): its macros are not known. */
  flagsUnread?: string;
}

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

/** The macros a command line defines and undefines; a macro in neither is unknown. */
export interface MacroState {
  defines: Map<string, string>;
  undefines: Set<string>;
}

export const copyMacros = (m: MacroState): MacroState => ({
  defines: new Map(m.defines),
  undefines: new Set(m.undefines),
});

/** A value the build computes when it runs: an f-string or format placeholder, a shell or CMake expansion. */
const RUNTIME_VALUE = /[{}]|%[sdr]|\$\(|\$</;

/**
 * -DNAME[=value] and -UNAME in a list of flags (each may hold several, space-separated). A flag whose value
 * is computed at run time (`unknown`, or a placeholder in its value) makes its macro unknown.
 */
export function macroFlags(
  flags: readonly string[],
  defines: Map<string, string>,
  undefines: Set<string>,
  unknown = false,
): void {
  for (const flag of flags.flatMap((f) => f.split(/\s+/))) {
    const d = /^-D([A-Za-z_]\w*)(?:=(.*))?$/.exec(flag);
    const u = /^-U([A-Za-z_]\w*)$/.exec(flag);
    const name = d?.[1] ?? u?.[1];
    if (name === undefined) continue;
    defines.delete(name);
    undefines.delete(name);
    if (unknown || (d && RUNTIME_VALUE.test(d[2] ?? ""))) continue;
    if (d) defines.set(name, d[2] ?? "1");
    else undefines.add(name);
  }
}

/** The folders of `-Idir` / `-I dir` flags (each may hold several, space-separated), resolved against `base`. */
export function includeFlags(flags: readonly string[], base: string): string[] {
  const words = flags.flatMap((f) => f.split(/\s+/)).filter((w) => w.length > 0);
  const out: string[] = [];
  words.forEach((w, i) => {
    const dir = w === "-I" ? words[i + 1] : w.startsWith("-I") ? w.slice(2) : undefined;
    if (dir && !RUNTIME_VALUE.test(dir) && !dir.startsWith("-")) out.push(resolve(base, dir));
  });
  return out;
}

/**
 * The macros after one of several exclusive branches ran, when which one cannot be told: a macro keeps its
 * state only where every branch leaves it the same; elsewhere it is unknown.
 */
export function mergeExclusive(states: readonly MacroState[]): MacroState {
  const [first, ...rest] = states;
  if (!first) return { defines: new Map(), undefines: new Set() };
  const defines = new Map([...first.defines].filter(([k, v]) => rest.every((s) => s.defines.get(k) === v)));
  const undefines = new Set([...first.undefines].filter((k) => rest.every((s) => s.undefines.has(k))));
  return { defines, undefines };
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

const HIP_WORDS = /^(?:hip|rocm|hipcc|amd)$/;
const CUDA_WORDS = /^(?:cuda|cudatoolkit|nvcc)$/;
/** The other words a backend switch's name may hold: USE_CUDA, BUILD_HIP, CUDA_FOUND, IS_HIP_EXTENSION… */
const SWITCH_WORDS =
  /^(?:use|build|with|enable|enabled|is|has|found|home|compiler|keep|extension|platform|torch|pytorch|version|backend)$/;

/**
 * The backend a build switch's name selects: USE_ROCM, BUILD_HIP, GGML_HIP, IS_HIP_EXTENSION,
 * torch.version.hip -> "rocm"; BUILD_CUDA, CMAKE_CUDA_COMPILER, torch.cuda.is_available -> "cuda".
 * Undefined for any other name (USE_CUDA_GRAPHS is an option, not a backend), or a backend's name itself
 * ("CUDA", "rocm"), as a quoted value.
 */
export function switchBackend(name: string): "cuda" | "rocm" | undefined {
  const words = name
    .toLowerCase()
    .split(/[_.]+/)
    .filter((w) => w.length > 0);
  const at = words.findIndex((w) => HIP_WORDS.test(w) || CUDA_WORDS.test(w));
  // SKIP_CUDA_BUILD, NO_HIP, DISABLE_CUDA: the switch turns the backend off.
  if (at < 0 || words.some((w) => /^(?:skip|no|disable|disabled|without|force|only)$/.test(w)))
    return undefined;
  // A project's prefix may come first (GGML_CUDA); every other word must be a switch's.
  const others = words.filter((_, i) => i !== at && !(i === 0 && at > 0 && words.length > 1));
  if (!others.every((w) => SWITCH_WORDS.test(w))) return undefined;
  return HIP_WORDS.test(words[at]!) ? "rocm" : "cuda";
}

/** A backend named as a value (`GPU_LANG STREQUAL "HIP"`, `BUILD_TARGET == "rocm"`). */
export function valueBackend(value: string): "cuda" | "rocm" | undefined {
  const v = value.toLowerCase();
  return HIP_WORDS.test(v) ? "rocm" : CUDA_WORDS.test(v) ? "cuda" : undefined;
}
