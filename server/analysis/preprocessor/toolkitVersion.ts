// How old the CUDA toolkit can be: the oldest release whose nvcc builds for each target. A build for
// sm_75 needs CUDA 10.0 or later (Turing support came with it: CUDA 10.0 release notes), sm_80 CUDA 11.0
// (the first nvcc whose GPU names list sm_80), sm_86 CUDA 11.1, sm_89 and sm_90 CUDA 11.8 (its release
// notes add Ada and Hopper). One nvcc compiles every target of a build, so the build's newest target sets
// the floor; a target past the table takes the floor of the newest one listed (an older release: still
// a lower bound). The toolkit's version macros are read as at least that floor, never as one value:
// CUDA_VERSION (cuda.h) and CUDART_VERSION (cuda_runtime_api.h, which nvcc includes in every .cu) as
// 1000 × major + 10 × minor, __CUDACC_VER_MAJOR__ (nvcc's own) as the major. It cannot see the toolkit
// actually installed, and takes CUDA_VERSION as defined: a file that tests it gets cuda.h through its
// includes (a framework's headers, or the source that includes a header), which it does not follow.
/** SM number → the oldest toolkit that builds for it, as CUDA_VERSION writes it. */
const FIRST_TOOLKIT: readonly (readonly [sm: number, version: number])[] = [
  [75, 10000],
  [80, 11000],
  [86, 11010],
  [89, 11080],
  [90, 11080],
];

/** The floor with nothing declared: the oldest target this linter supports is sm_75. */
export const DEFAULT_TOOLKIT_FLOOR = 10000;

/**
 * The oldest toolkit (as CUDA_VERSION) that builds for all of `targets` (SM numbers; none declared: 10.0);
 * undefined when the newest is older than the table (no floor is known: the version macros stay unknown).
 */
export function toolkitFloor(targets: readonly number[]): number | undefined {
  if (targets.length === 0) return DEFAULT_TOOLKIT_FLOOR;
  const newest = Math.max(...targets);
  if (newest < FIRST_TOOLKIT[0]![0]) return undefined;
  let floor = DEFAULT_TOOLKIT_FLOOR;
  for (const [sm, version] of FIRST_TOOLKIT) if (sm <= newest) floor = version;
  return floor;
}

/** The lower bound a toolkit version macro has under `floor` (CUDA_VERSION form), if `name` is one. */
export function toolkitMacroBound(name: string, floor: number | undefined): number | undefined {
  if (floor === undefined) return undefined;
  if (name === "CUDA_VERSION" || name === "CUDART_VERSION") return floor;
  if (name === "__CUDACC_VER_MAJOR__") return Math.floor(floor / 1000);
  return undefined;
}
