// The names a function declares with a floating-point type (`float x1 = …`, `const float c = …, s = …`,
// `double acc;`, a `float` parameter): float values, which a store into a __half/__nv_bfloat16 element
// converts implicitly. A name also declared with another type in the function (a shadowing block) is
// left out; names declared at file scope, through `auto`, or with aliases of float are not seen.
import type { Node } from "web-tree-sitter";
import type { FileIndex, FunctionSpan } from "../source/fileIndex";

const FLOAT_TYPE = /^(?:(?:const|volatile|register|static)\s+)*(?:float|double)$/;
const DECLARATIONS = ["declaration", "parameter_declaration"];

/** The float-typed names of `fn` (one reading per function and run). */
export function floatNames(idx: FileIndex, fn: FunctionSpan): ReadonlySet<string> {
  const memo = idx.shared("floatNames", () => new Map<number, Set<string>>());
  let names = memo.get(fn.start);
  if (!names) {
    names = readFloatNames(fn.node);
    memo.set(fn.start, names);
  }
  return names;
}

function readFloatNames(fn: Node): Set<string> {
  const float = new Set<string>();
  const other = new Set<string>();
  for (const d of fn.descendantsOfType(DECLARATIONS)) {
    const type = d?.childForFieldName("type");
    if (!d || !type) continue;
    const isFloat = FLOAT_TYPE.test(`${d.text.slice(0, type.endIndex - d.startIndex)}`.replace(/\s+/g, " ").trim());
    for (const decl of d.childrenForFieldName("declarator")) {
      const name = declaratorName(decl);
      if (name) (isFloat ? float : other).add(name);
    }
  }
  for (const n of other) float.delete(n);
  return float;
}

/** The identifier a plain or initialised declarator declares (not through `*` or `[]`). */
function declaratorName(decl: Node | null): string | undefined {
  if (!decl) return undefined;
  if (decl.type === "identifier") return decl.text;
  if (decl.type === "init_declarator") {
    const inner = decl.childForFieldName("declarator");
    return inner?.type === "identifier" ? inner.text : undefined;
  }
  return undefined;
}
