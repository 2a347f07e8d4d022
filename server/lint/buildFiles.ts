// What each kind of build file says about the sources it builds: their backend, target architectures and
// the macros defined on the compiler's command line. Each file is read once (cached by path, size and
// mtime), so its notes are made once however many sources it builds.
import { readFileSync, statSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import { parse as parseToml } from "smol-toml";
import { commandArgs, forEachCompileCommand } from "../util/compileCommands";
import { errorMessage } from "../util/errorMessage";
import {
  archTokens,
  archsFromFlags,
  includeFlags,
  macroFlags,
  type Backend,
  type BuildKind,
  type BuildUnit,
} from "./buildFlags";
import { readCMake } from "./cmakeRead";
import { readOpBuilder } from "./opBuilderRead";
import { readSetupPy } from "./setupPyRead";
import { readTorchLoad } from "./torchLoadRead";

export {
  archTokens,
  archsFromFlags,
  macroFlags,
  PYTORCH_NVCC_DEFINES,
  type Backend,
  type BuildKind,
  type BuildUnit,
} from "./buildFlags";

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

const BACKENDS: ReadonlySet<string> = new Set(["cuda", "rocm", "metal", "xpu", "cpu"]);

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
      ...(useDefault ? { archsFrom: "kernel-builder's default capabilities", archsDeclared: false } : {}),
      defines,
      undefines,
      pytorch: torchExt || strings(k.depends).includes("torch"),
    };
  });
}

/**
 * compile_commands.json: one unit per set of flags, listing the CUDA entries that have it (most entries
 * share a few), and one for the rest (every CUDA entry's archs). A file listed twice keeps its first
 * entry's flags. Entries for C++ files are skipped: only .cu/.cuh files are linted. Read one entry at a
 * time, so memory follows the number of CUDA sources, not the file's size.
 */
function readCompileCommands(file: string): BuildUnit[] {
  const byFacts = new Map<string, BuildUnit & { sources: string[] }>();
  const seen = new Set<string>();
  forEachCompileCommand(file, (e) => {
    if (typeof e.file !== "string" || !/\.cuh?$/.test(e.file)) return;
    const dir = typeof e.directory === "string" ? e.directory : dirname(file);
    const source = resolve(dir, e.file);
    if (seen.has(source)) return;
    seen.add(source);
    const flags = commandArgs(e);
    const defines = new Map<string, string>();
    const undefines = new Set<string>();
    macroFlags(flags, defines, undefines);
    const includeDirs = includeFlags(flags, dir);
    const archs = archsFromFlags(flags.join(" "));
    // Keyed by what was read, not the flags: each entry's -o and file differ.
    const key = JSON.stringify([[...defines], [...undefines], includeDirs, archs]);
    let unit = byFacts.get(key);
    if (!unit) {
      unit = { backend: "cuda", sources: [], archs, defines, undefines, pytorch: false };
      if (includeDirs.length > 0) unit.includeDirs = includeDirs;
      byFacts.set(key, unit);
    }
    unit.sources.push(source);
  });
  const units: BuildUnit[] = [...byFacts.values()];
  const archs = [...new Set(units.flatMap((u) => u.archs ?? []))].sort((x, y) => x - y);
  units.push({ backend: "cuda", archs, defines: new Map(), undefines: new Set(), pytorch: false });
  return units;
}

const READERS: Record<
  Exclude<BuildKind, "compile_commands.json">,
  (file: string, text: string, notes: string[]) => BuildUnit[]
> = {
  "build.toml": readBuildToml,
  "CMakeLists.txt": readCMake,
  "setup.py": readSetupPy,
  "cpp_extension.load": readTorchLoad,
  op_builder: readOpBuilder,
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
    units =
      kind === "compile_commands.json"
        ? readCompileCommands(file)
        : READERS[kind](file, readFileSync(file, "utf8"), notes);
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
