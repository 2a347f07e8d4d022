// What a macro is before the file says anything of it, in one compilation pass of a CUDA build: the
// build's command line (-D/-U), __CUDA_ARCH__ (undefined on the host, the target's SM×10 on a device
// pass), and what every CUDA build knows: HIP's platform macros and a project's HIP switches are
// undefined, and CUB's CUB_USE_COOPERATIVE_GROUPS is defined. A HIP switch is a macro whose name says
// HIP/ROCm/AMD (MYLIB_WITH_HIP, USE_ROCM) and which no part of a CUDA build defines, or one the project
// defines only where HIP's macros are (recorded by the caller in `hipOnly`). The toolkit's version macros
// (CUDA_VERSION, __CUDACC_VER_MAJOR__) are at least the floor the build's targets need (toolkitVersion.ts)
// when the caller gives one, else unknown; it cannot see the toolkit's exact version nor what system
// headers define.
import type { BuildFacts } from "../../rules/rule";
import { HIP_MACROS } from "../../lint/buildContext";
import type { MacroInfo, MacroLookup } from "./condition";
import { toolkitFloor, toolkitMacroBound } from "./toolkitVersion";

/**
 * The macros a condition may name, as the build context knows them; `toolkitFloor`: the oldest toolkit
 * the targets allow, as CUDA_VERSION writes it (toolkitVersion.ts; absent: the version is unknown).
 */
export type MacroEnv = Pick<BuildFacts, "defines" | "undefines"> & { readonly toolkitFloor?: number };

/** One compilation pass: the host, a device pass for an SM×10 value (e.g. 750), or a device pass for any arch. */
export type Pass = number | "host" | "device";

/**
 * Defined in every CUDA build that can target sm_70 or later: CUB's headers define
 * CUB_USE_COOPERATIVE_GROUPS for every nvcc from CUDA 9 on (its `#else` arms hold pre-Volta code).
 */
const CUDA_BUILD_DEFINES: ReadonlyMap<string, string> = new Map([["CUB_USE_COOPERATIVE_GROUPS", ""]]);

/**
 * A lint's macros: the build's, with the toolkit as new as its declared targets need (with none declared,
 * or only this machine's GPU assumed: as sm_75 needs).
 */
export function lintMacroEnv(build: BuildFacts, targets: readonly number[]): MacroEnv {
  const floor = toolkitFloor(build.targets === "declared" ? targets : []);
  return { defines: build.defines, undefines: build.undefines, toolkitFloor: floor };
}

/** Name parts that say HIP, ROCm or AMD: USE_ROCM, MYLIB_WITH_HIP, GGML_USE_HIPBLAS, IS_AMD_GPU. */
const HIP_PART = /^(?:HIP\w*|ROCM\w*|AMD|AMDGPU|HCC|RCCL|MIOPEN)$/i;
/** Parts that say the macro is about NVIDIA as well (HIP on NVIDIA, CUDA_OR_HIP): not a HIP switch. */
const NVIDIA_PART = /^(?:NVIDIA|NVCC|NV|CUDA|CUDACC)$/i;

/** Whether a macro's name alone says it is a HIP/ROCm switch. */
export function isHipSwitchName(name: string): boolean {
  const parts = name.split("_").filter((p) => p !== "");
  return parts.some((p) => HIP_PART.test(p)) && !parts.some((p) => NVIDIA_PART.test(p));
}

/** Whether a condition's text names HIP's macros or a HIP switch (a definition under it is HIP's). */
export function namesHip(condition: string): boolean {
  for (const m of condition.matchAll(/[A-Za-z_]\w*/g)) if (isHipSwitchName(m[0])) return true;
  return false;
}

/** A CUDA build: the build does not define HIP's own platform macros (a ROCm build does). */
export function isCudaBuild(env: MacroEnv): boolean {
  return !HIP_MACROS.some((m) => m !== "USE_ROCM" && env.defines.has(m));
}

const UNKNOWN: MacroInfo = { defined: undefined };
const UNDEFINED: MacroInfo = { defined: false };

/**
 * The lookup before the file's own lines: `hipOnly` holds the macros the project defines only under HIP
 * conditions (filled in as the file is read).
 */
export function baseLookup(pass: Pass, env: MacroEnv, hipOnly: ReadonlySet<string> = new Set()): MacroLookup {
  const cuda = isCudaBuild(env);
  return (name) => {
    if (name === "__CUDA_ARCH__")
      return pass === "host"
        ? UNDEFINED
        : { defined: true, ...(pass === "device" ? {} : { body: String(pass) }) };
    const value = env.defines.get(name);
    if (value !== undefined) return { defined: true, body: value };
    if (env.undefines.has(name)) return UNDEFINED;
    if (!cuda) return UNKNOWN;
    const fact = CUDA_BUILD_DEFINES.get(name);
    if (fact !== undefined) return { defined: true, body: fact };
    const atLeast = toolkitMacroBound(name, env.toolkitFloor);
    if (atLeast !== undefined) return { defined: true, atLeast };
    return hipOnly.has(name) || isHipSwitchName(name) ? UNDEFINED : UNKNOWN;
  };
}

/** Whether the CUDA build knows `name` whatever a header's unknown condition did to it. */
export function cudaBuildFact(name: string, env: MacroEnv): boolean {
  return CUDA_BUILD_DEFINES.has(name) && isCudaBuild(env) && !env.undefines.has(name);
}
