// Whether a function already moves data through vector types: a built-in one (__half2, float4, uint4…),
// a 128-bit helper (llm.c's x128/Packed128, load128/store128) or the project's own aligned struct
// (types/vectorTypes.ts). A function that vectorizes has its scalar loop as the odd-length tail.
// Cannot see: vectorization inside called functions or macros named otherwise.
import { isWordCode } from "../source/charCodes";

/** Vector types: the function vectorizes. */
const VECTOR_TYPES =
  /\b(?:__half2|half2|__nv_bfloat162|nv_bfloat162|float2|float4|int2|int4|uint2|uint4|ulonglong2|longlong2)\b/;

/**
 * Does `src` name a vector type, or a 128-bit helper (llm.c's x128/Packed128, load128/store128: a word
 * ending in `128` that starts with a letter or `_`)? The helpers are found from indexOf("128"): as a regex
 * alternative, `[A-Za-z_]\w*128` is tried at every word.
 */
function vectorizes(src: string): boolean {
  if (VECTOR_TYPES.test(src)) return true;
  for (let at = src.indexOf("128"); at >= 0; at = src.indexOf("128", at + 1)) {
    if (isWordCode(src.charCodeAt(at + 3))) continue;
    let start = at;
    while (start > 0 && isWordCode(src.charCodeAt(start - 1))) start--;
    // The regex starts at a word's start (`\b`), with a letter or `_`.
    if (start < at && !isDigitCode(src.charCodeAt(start))) return true;
  }
  return false;
}

const isDigitCode = (c: number): boolean => c >= 48 && c <= 57;

/** `name` as a word of `src`. */
const namesWord = (src: string, name: string): boolean => new RegExp(`\\b${name}\\b`).test(src);

/** Does the function move data through a vector type: a built-in one, a `*128` helper or the project's own aligned struct? */
export function vectorizesIn(src: string, projectVectors: ReadonlySet<string>): boolean {
  if (vectorizes(src)) return true;
  for (const v of projectVectors) if (src.includes(v) && namesWord(src, v)) return true;
  return false;
}
