// A source file's build context, computed once and shared by every rule: which build it belongs to (a
// build.toml kernel, CMake, setup.py, compile_commands.json), its backend, its target architectures and
// the macros its compiler command line defines. Targets come from the setting (or --arch), then the
// nearest build file of each kind in the order build.toml, CMakeLists.txt, setup.py, then
// $TORCH_CUDA_ARCH_LIST, compile_commands.json, and last this machine's GPU when the caller knows it.
import { readdirSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
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
  | "cpp_extension.load"
  | "op_builder"
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
  /**
   * True when the project chose them (the setting, --arch, cuda-capabilities, CMake, setup.py,
   * $TORCH_CUDA_ARCH_LIST, compile_commands.json); false when they stand in for a choice nobody made
   * (kernel-builder's default capabilities, this machine's GPU, nvcc's default).
   */
  declared: boolean;
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
  build?: { kind: BuildKind; file: string; unit?: string; also?: { kind: BuildKind; file: string } };
  /** Only "cuda" is linted as CUDA. */
  backend: Backend;
  targets: ResolvedTargets;
  /** Where kernel-builder's defaults stood in for capabilities the build.toml does not list. */
  targetsFrom?: string;
  defines: ReadonlyMap<string, string>;
  undefines: ReadonlySet<string>;
  /** A PyTorch extension build (PyTorch's nvcc flags are among the defines). */
  pytorch: boolean;
  /** The include directories the build gives the compiler (absolute). */
  includeDirs: string[];
  /** Flags the build takes from somewhere we cannot read: its macros are not known. */
  flagsUnread?: string;
}

const listing = (dir: string, keep: (name: string) => boolean): string[] => {
  try {
    return readdirSync(dir)
      .filter(keep)
      .sort()
      .slice(0, 200)
      .map((n) => join(dir, n));
  } catch {
    return [];
  }
};

/**
 * The build files of each kind, in the order they own a source, found in a folder; and whether one that
 * does not list the source still builds it (a build.toml, CMakeLists.txt or setup.py builds its folder).
 */
const KINDS: readonly { kind: BuildKind; files: (dir: string) => string[]; generic: boolean }[] = [
  { kind: "build.toml", files: (dir) => [join(dir, "build.toml")], generic: true },
  {
    kind: "cpp_extension.load",
    files: (dir) => listing(dir, (n) => n.endsWith(".py") && n !== "setup.py"),
    generic: false,
  },
  {
    kind: "op_builder",
    files: (dir) => listing(join(dir, "op_builder"), (n) => n.endsWith(".py")),
    generic: false,
  },
  { kind: "CMakeLists.txt", files: (dir) => [join(dir, "CMakeLists.txt")], generic: true },
  { kind: "setup.py", files: (dir) => [join(dir, "setup.py")], generic: true },
];

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
  for (const { kind, files, generic } of KINDS)
    for (const dir of dirs)
      for (const f of files(dir))
        visit(readBuildFile(kind, f), (info) => {
          const unit = unitFor(info, file);
          return generic ? (unit ?? projectUnit(info)) : unit?.sources ? unit : undefined;
        });
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

/**
 * A source both builds compile (a build.toml kernel and a setup.py CUDAExtension beside it): the macros
 * either sets, but for those they set differently; the targets either declares.
 */
function bothBuilds(toml: BuildUnit, setup: BuildUnit): BuildUnit {
  const defines = new Map<string, string>();
  const clash = new Set<string>();
  for (const [k, v] of [...toml.defines, ...setup.defines]) {
    if (defines.has(k) && defines.get(k) !== v) clash.add(k);
    defines.set(k, v);
  }
  for (const k of clash) defines.delete(k);
  const undefines = new Set(
    [...toml.undefines, ...setup.undefines].filter((k) => !defines.has(k) && !clash.has(k)),
  );
  const declared = [toml, setup].filter((u) => (u.archs?.length ?? 0) > 0 && u.archsDeclared !== false);
  const archs =
    declared.length > 0 ? [...new Set(declared.flatMap((u) => u.archs!))].sort((a, b) => a - b) : toml.archs;
  const from = declared.length > 0 ? declared : [toml];
  const archsFrom = from
    .map((u) => (u === setup ? `setup.py's${u.archsFrom ? ` (${u.archsFrom})` : ""}` : u.archsFrom))
    .filter((f): f is string => f !== undefined);
  return {
    ...toml,
    archs,
    ...(archsFrom.length > 0 ? { archsFrom: archsFrom.join(" and ") } : {}),
    ...(declared.length > 0 ? { archsDeclared: true } : {}),
    defines,
    undefines,
    pytorch: true,
    includeDirs: [...new Set([...(toml.includeDirs ?? []), ...(setup.includeDirs ?? [])])],
  };
}

export function resolveBuildContext(q: TargetQuery): BuildContext {
  const file = resolve(q.file);
  const { found, notes } = buildFilesOf(file, ancestors(dirname(file), q.stopAt));
  // The nearest build file of the first kind owns the file; compile_commands.json only when nothing else does.
  // A setup.py that builds a PyTorch extension beside a build.toml compiles the file too.
  const also =
    found[0]?.info.kind === "build.toml"
      ? found.find((f) => f.info.kind === "setup.py" && f.unit.pytorch)
      : undefined;
  if (also) found[0] = { ...found[0]!, unit: bothBuilds(found[0]!.unit, also.unit) };
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
    targets = { archs: q.explicit.archs, source: q.explicit.source, notes, declared: true };
  const declaring = found.find(
    (f) => (f.unit.archs?.length ?? 0) > 0 && f.info.kind !== "compile_commands.json",
  );
  if (!targets && declaring) {
    const { archs, archsDeclared, archsFrom } = declaring.unit;
    targets = {
      archs: archs!,
      source: declaring.info.kind,
      file: declaring.info.file,
      notes,
      declared: archsDeclared !== false,
    };
    targetsFrom = archsFrom;
  }
  const envList = (q.env ?? process.env).TORCH_CUDA_ARCH_LIST;
  if (!targets && envList) {
    const archs = archTokens(envList.split(/[\s;,]+/), "$TORCH_CUDA_ARCH_LIST", notes);
    if (archs.length > 0) targets = { archs, source: "TORCH_CUDA_ARCH_LIST", notes, declared: true };
  }
  const commands = found.find((f) => (f.unit.archs?.length ?? 0) > 0);
  if (!targets && commands)
    targets = {
      archs: commands.unit.archs!,
      source: commands.info.kind,
      file: commands.info.file,
      notes,
      declared: true,
    };
  if (!targets && q.gpuArch !== undefined)
    targets = { archs: [q.gpuArch], source: "gpu", notes, declared: false };
  return {
    file,
    ...(owner
      ? {
          build: {
            kind: owner.info.kind,
            file: owner.info.file,
            ...(owner.unit.name ? { unit: owner.unit.name } : {}),
            ...(also ? { also: { kind: also.info.kind, file: also.info.file } } : {}),
          },
        }
      : {}),
    backend,
    targets: targets ?? { archs: DEFAULT_TARGETS, source: "default", notes, declared: false },
    ...(targetsFrom ? { targetsFrom } : {}),
    defines,
    undefines,
    pytorch: owner?.unit.pytorch ?? false,
    includeDirs: owner?.unit.includeDirs ?? [],
    ...(owner?.unit.flagsUnread ? { flagsUnread: owner.unit.flagsUnread } : {}),
  };
}

/** What the rules see of the context. */
export function buildFacts(ctx: BuildContext): BuildFacts {
  return {
    targets: ctx.targets.source === "default" ? "none" : ctx.targets.source === "gpu" ? "gpu" : "declared",
    targetsDeclared: ctx.targets.declared,
    defines: ctx.defines,
    undefines: ctx.undefines,
    definesKnown: ctx.build !== undefined && ctx.flagsUnread === undefined,
    pytorch: ctx.pytorch,
    ...(ctx.includeDirs.length > 0 ? { includeDirs: ctx.includeDirs } : {}),
  };
}

/**
 * `text` (a note, a warning) with each absolute path in it shown relative to `cwd`, as findings' paths
 * are. A path ends at a space, a quote, a bracket, a comma or a colon.
 */
export function relativePaths(text: string, cwd: string): string {
  return text.replace(/(^|[\s"'(])((?:[A-Za-z]:)?[\\/][^\s"'():,]*)/g, (all, before: string, path: string) =>
    isAbsolute(path) ? `${before}${relative(cwd, path).split(sep).join("/") || "."}` : all,
  );
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
    "cpp_extension.load": "the script's cpp_extension.load flags",
    op_builder: "the op builder's nvcc flags",
    "compile_commands.json": "compile_commands.json",
  };
  const where = ctx.targets.file ? ` (${show(ctx.targets.file)})` : "";
  const macros = [...ctx.defines].map(([k, v]) => (v === "1" ? k : `${k}=${v}`)).sort();
  const lines = [
    `Build: ${b ? `${show(b.file)}${b.unit ? ` [kernel.${b.unit}]` : ""}${b.also ? ` and ${show(b.also.file)} (both compile it)` : ""}` : "no build file found"}`,
    `Backend: ${ctx.backend}${ctx.backend === "cuda" ? "" : " (not linted as CUDA)"}${ctx.pytorch ? ", PyTorch extension" : ""}`,
    `Targets: ${ctx.targets.source === "default" ? "none declared" : archs} from ${from[ctx.targets.source]}${where}${ctx.targetsFrom ? `, ${ctx.targetsFrom}` : ""}`,
    `Macros: ${macros.length > 0 ? macros.map((m) => `-D${m}`).join(" ") : "none"}${b ? "" : " (no build file: the file's own includes decide what is a PyTorch extension)"}`,
  ];
  if (ctx.includeDirs.length > 0)
    lines.push(`Include paths: ${ctx.includeDirs.map((d) => `-I${show(d)}`).join(" ")}`);
  if (ctx.flagsUnread)
    lines.push(
      `Flags not read: ${ctx.flagsUnread}; they may undo PyTorch's switches, so those are not assumed`,
    );
  const own = [...ctx.undefines].filter((m) => !HIP_MACROS.includes(m)).sort();
  const hip = HIP_MACROS.every((m) => ctx.undefines.has(m))
    ? ["HIP's (USE_ROCM, __HIP_PLATFORM_AMD__…)"]
    : [];
  if (own.length + hip.length > 0)
    lines.push(`Undefined: ${[...own.map((m) => `-U${m}`), ...hip].join(" ")}`);
  return lines;
}
