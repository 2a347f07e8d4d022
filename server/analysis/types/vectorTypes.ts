// A project's own vector types: a struct, class or union declared with an alignment
// (`struct alignas(16) Vec { half v[8]; }`, `template <typename T, int N> struct alignas(sizeof(T) * N)
// AlignedArray`, `struct __align__(16) Pack`), which code declares to load and store several elements
// in one access. Read from the code text of the file and its project headers (declEnv.ts); one declared
// in an `<…>` header, or aligned only through a member's type, is not seen.

/** `struct alignas(…) NAME`, `struct __align__(…) NAME`, `struct __attribute__((aligned(…))) NAME` (group 1: NAME). */
const ALIGNED_TYPE =
  /\b(?:struct|class|union)\s+(?:alignas\s*\((?:[^()]|\([^()]*\))*\)|__align__\s*\([^()]*\)|__attribute__\s*\(\(\s*aligned\s*\([^()]*\)\s*\)\))\s*([A-Za-z_]\w*)/g;

/** The aligned type names declared in `code` (comments and literals blanked). */
export function alignedTypeNames(code: string): string[] {
  if (!code.includes("align")) return [];
  return [...code.matchAll(ALIGNED_TYPE)].map((m) => m[1]!);
}
