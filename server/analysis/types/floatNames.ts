// The names a function declares with a floating-point type (`float x1 = …`, `const float c = …, s = …`,
// `double acc;`, a `float` parameter): float values, which a store into a __half/__nv_bfloat16 element
// converts implicitly. Read from the function's code text (declarators as halfTypes.ts reads them). A
// name also declared with another type in the function (a shadowing block) is left out only when that
// declaration is a plain `int`/`auto`-style one the text shows; names declared at file scope, through
// `auto`, or with aliases of float are not seen.
import type { FileIndex, FunctionSpan } from "../source/fileIndex";
import { codeSlice } from "../source/codeText";
import { parseDeclarators } from "./halfTypes";

/** `float` or `double` starting a declaration's type, followed by a declarator (not a cast or `float(x)`). */
const FLOAT_DECL = /\b(?:float|double)\s+(?=[*&A-Za-z_])/g;
/** Other types that may declare one of the same names. */
const OTHER_DECL =
  /\b(?:int|unsigned|long|short|char|bool|size_t|auto|u?int(?:8|16|32|64)_t|__half2?|half2?|__nv_bfloat162?)\s+(?=[*&A-Za-z_])/g;

/** The float-typed names of `fn` (one reading per function and run). */
export function floatNames(idx: FileIndex, fn: FunctionSpan): ReadonlySet<string> {
  const memo = idx.shared("floatNames", () => new Map<number, Set<string>>());
  let names = memo.get(fn.start);
  if (!names) {
    names = readFloatNames(codeSlice(idx, fn.start, fn.end));
    memo.set(fn.start, names);
  }
  return names;
}

/** The names each match of `re` declares without `*`/`[]`, read to the declaration's end. */
function declared(code: string, re: RegExp, plainOnly: boolean): Set<string> {
  const out = new Set<string>();
  for (const m of code.matchAll(re)) {
    const from = m.index + m[0].length;
    // A declaration ends at `;`, a parameter at `,` or `)`, at depth 0; a `{` ends a function header.
    let depth = 0;
    let end = from;
    for (; end < code.length; end++) {
      const c = code[end]!;
      if (c === "(" || c === "[") depth++;
      else if (c === ")" || c === "]") {
        if (depth === 0) break;
        depth--;
      } else if (depth === 0 && (c === ";" || c === "{")) break;
    }
    for (const d of parseDeclarators(code, from, end)) if (!plainOnly || d.indirection === 0) out.add(d.name);
  }
  return out;
}

function readFloatNames(code: string): Set<string> {
  if (!code.includes("float") && !code.includes("double")) return new Set();
  const floats = declared(code, FLOAT_DECL, true);
  if (floats.size > 0) for (const n of declared(code, OTHER_DECL, false)) floats.delete(n);
  return floats;
}
