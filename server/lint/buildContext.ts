// A source file's build context, computed once and shared by every rule: which build it belongs to (a
// build.toml kernel, CMake, setup.py, compile_commands.json), its backend, its target architectures and
// the macros its compiler command line defines. Targets come from the setting (or --arch), then the
// nearest build file of each kind in the order build.toml, CMakeLists.txt, setup.py, then
// $TORCH_CUDA_ARCH_LIST, compile_commands.json, and last this machine's GPU when the caller knows it.
import { dirname, join, relative, resolve } from "node:path";
import type { BuildFacts } from "../rules/rule";
import { formatArch } from "./arch";
import {
  archTokens,
  readBuildFile,
  unitFor,
  type Backend,
  type BuildFileInfo,
  type BuildKind,
  type BuildUnit,
} from "./buildFiles";

/** Where the target architectures in force came from, in the order they are looked for. */
export type TargetSource =
  | "setting"
  | "build.toml"
  | "CMakeLists.txt"
  | "setup.py"
  | "TORCH_CUDA_ARCH_LIST"
  | "compile_commands.json"
  | "cli"
  | "gpu"
  | "default";

export interface ResolvedTargets {
  /** SM numbers, ascending, never empty. */
  archs: number[];
  source: TargetSource;
  file?: string;
  /** Build files that named targets we could not read (e.g. "native"), or failed to parse. */
  notes: string[];
}

/** nvcc 13's own default when no -arch is given; shown, but arch-dependent rules do not run on it. */
export const DEFAULT_TARGETS = [75];

export interface TargetQuery {
  /** The file being linted (absolute). */
  file: string;
  /** Targets from the editor setting or the CLI's --arch (already parsed); win when non-empty. */
  explicit?: { archs: number[]; source: "setting" | "cli" };
  /** Do not look above this folder (the workspace root); default: the filesystem root. */
  stopAt?: string;
  env?: NodeJS.ProcessEnv;
  /** This machine's GPU (SM number), assumed when nothing declares targets. */
  gpuArch?: number;
}

export interface BuildContext {
  file: string;
  /** The build file the source belongs to (its kernel for build.toml); none when no build file was found. */
  build?: { kind: BuildKind; file: string; unit?: string };
  /** Only "cuda" is linted as CUDA. */
  backend: Backend;
  targets: ResolvedTargets;
  /** Where kernel-builder's defaults stood in for capabilities the build.toml does not list. */
  targetsFrom?: string;
  defines: ReadonlyMap<string, string>;
  undefines: ReadonlySet<string>;
  /** A PyTorch extension build (PyTorch's nvcc flags are among the defines). */
  pytorch: boolean;
}

const KINDS: readonly BuildKind[] = ["build.toml", "CMakeLists.txt", "setup.py"];

export function ancestors(start: string, stopAt: string | undefined): string[] {
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

/** A build.toml source no kernel lists (a test, a benchmark): the CUDA kernels' union, if there are any. */
function projectUnit(info: BuildFileInfo): BuildUnit | undefined {
  const cuda = info.units.filter((u) => u.backend === "cuda");
  if (cuda.length === 0) return info.units[0];
  const archs = [...new Set(cuda.flatMap((u) => u.archs ?? []))].sort((a, b) => a - b);
  return { ...cuda[0]!, name: undefined, archs };
}

interface Found {
  info: BuildFileInfo;
  unit: BuildUnit;
}

/**
 * The build files of every kind above `file`, nearest first within each kind, with the unit building it;
 * and the notes of every build file read on the way.
 */
function buildFilesOf(file: string, dirs: readonly string[]): { found: Found[]; notes: string[] } {
  const found: Found[] = [];
  const notes = new Set<string>();
  const visit = (
    info: BuildFileInfo | undefined,
    unit: (info: BuildFileInfo) => BuildUnit | undefined,
  ): void => {
    if (!info) return;
    for (const n of info.notes) notes.add(n);
    const u = unit(info);
    if (u) found.push({ info, unit: u });
  };
  for (const kind of KINDS)
    for (const dir of dirs)
      visit(readBuildFile(kind, join(dir, kind)), (info) => unitFor(info, file) ?? projectUnit(info));
  for (const dir of dirs)
    for (const f of [join(dir, "compile_commands.json"), join(dir, "build", "compile_commands.json")])
      visit(readBuildFile("compile_commands.json", f), (info) => unitFor(info, file));
  return { found, notes: [...notes] };
}

/** HIP's own macros: undefined in a CUDA build unless its command line defines them. */
export const HIP_MACROS = [
  "USE_ROCM",
  "__HIP_PLATFORM_AMD__",
  "__HIP_PLATFORM_HCC__",
  "__HIPCC__",
  "__HIP__",
];

export function resolveBuildContext(q: TargetQuery): BuildContext {
  const file = resolve(q.file);
  const { found, notes } = buildFilesOf(file, ancestors(dirname(file), q.stopAt));
  // The nearest build file of the first kind owns the file; compile_commands.json only when nothing else does.
  const owner = found[0];
  const backend = owner?.unit.backend ?? "cuda";
  const defines = new Map(owner?.unit.defines ?? []);
  const undefines = new Set(owner?.unit.undefines ?? []);
  if (backend === "cuda") {
    defines.set("__CUDACC__", "1");
    for (const m of HIP_MACROS) if (!defines.has(m)) undefines.add(m);
  }
  let targets: ResolvedTargets | undefined;
  let targetsFrom: string | undefined;
  if (q.explicit && q.explicit.archs.length > 0)
    targets = { archs: q.explicit.archs, source: q.explicit.source, notes };
  const declaring = found.find(
    (f) => (f.unit.archs?.length ?? 0) > 0 && f.info.kind !== "compile_commands.json",
  );
  if (!targets && declaring) {
    targets = { archs: declaring.unit.archs!, source: declaring.info.kind, file: declaring.info.file, notes };
    targetsFrom = declaring.unit.archsFrom;
  }
  const envList = (q.env ?? process.env).TORCH_CUDA_ARCH_LIST;
  if (!targets && envList) {
    const archs = archTokens(envList.split(/[\s;,]+/), "$TORCH_CUDA_ARCH_LIST", notes);
    if (archs.length > 0) targets = { archs, source: "TORCH_CUDA_ARCH_LIST", notes };
  }
  const commands = found.find((f) => (f.unit.archs?.length ?? 0) > 0);
  if (!targets && commands)
    targets = { archs: commands.unit.archs!, source: commands.info.kind, file: commands.info.file, notes };
  if (!targets && q.gpuArch !== undefined) targets = { archs: [q.gpuArch], source: "gpu", notes };
  return {
    file,
    ...(owner
      ? {
          build: {
            kind: owner.info.kind,
            file: owner.info.file,
            ...(owner.unit.name ? { unit: owner.unit.name } : {}),
          },
        }
      : {}),
    backend,
    targets: targets ?? { archs: DEFAULT_TARGETS, source: "default", notes },
    ...(targetsFrom ? { targetsFrom } : {}),
    defines,
    undefines,
    pytorch: owner?.unit.pytorch ?? false,
  };
}

/** What the rules see of the context. */
export function buildFacts(ctx: BuildContext): BuildFacts {
  return {
    targets: ctx.targets.source === "default" ? "none" : ctx.targets.source === "gpu" ? "gpu" : "declared",
    defines: ctx.defines,
    undefines: ctx.undefines,
    definesKnown: ctx.build !== undefined,
    pytorch: ctx.pytorch,
  };
}

/** The context as lines for a person: the status item's tooltip and `lint --explain-context`. */
export function describeContext(ctx: BuildContext, cwd?: string): string[] {
  const show = (p: string): string => (cwd ? relative(cwd, p) || "." : p);
  const b = ctx.build;
  const archs = ctx.targets.archs.map(formatArch).join(", ");
  const from: Record<TargetSource, string> = {
    setting: "the cudaKernelDev.targets setting",
    cli: "the --arch option",
    TORCH_CUDA_ARCH_LIST: "$TORCH_CUDA_ARCH_LIST",
    gpu: "this machine's GPU (no setting or build file declares targets)",
    default: "nothing: no setting or build file declares targets, so arch-dependent rules are off",
    "build.toml": "build.toml",
    "CMakeLists.txt": "CMakeLists.txt",
    "setup.py": "setup.py",
    "compile_commands.json": "compile_commands.json",
  };
  const where = ctx.targets.file ? ` (${show(ctx.targets.file)})` : "";
  const macros = [...ctx.defines].map(([k, v]) => (v === "1" ? k : `${k}=${v}`)).sort();
  const lines = [
    `Build: ${b ? `${show(b.file)}${b.unit ? ` [kernel.${b.unit}]` : ""}` : "no build file found"}`,
    `Backend: ${ctx.backend}${ctx.backend === "cuda" ? "" : " (not linted as CUDA)"}${ctx.pytorch ? ", PyTorch extension" : ""}`,
    `Targets: ${ctx.targets.source === "default" ? "none declared" : archs} from ${from[ctx.targets.source]}${where}${ctx.targetsFrom ? `, ${ctx.targetsFrom}` : ""}`,
    `Macros: ${macros.length > 0 ? macros.map((m) => `-D${m}`).join(" ") : "none"}${b ? "" : " (no build file: the file's own includes decide what is a PyTorch extension)"}`,
  ];
  const own = [...ctx.undefines].filter((m) => !HIP_MACROS.includes(m)).sort();
  const hip = HIP_MACROS.every((m) => ctx.undefines.has(m))
    ? ["HIP's (USE_ROCM, __HIP_PLATFORM_AMD__…)"]
    : [];
  if (own.length + hip.length > 0)
    lines.push(`Undefined: ${[...own.map((m) => `-U${m}`), ...hip].join(" ")}`);
  return lines;
}
