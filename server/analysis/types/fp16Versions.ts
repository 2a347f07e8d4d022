// Whether a device function is one of several per-type versions with an FP16 one beside it: an explicit
// specialization (`template<>`, of the function or of the struct it is a member of), or an overload whose
// FP16 sibling (a device function of the same name taking or returning __half/half2) the file defines.
// The answer depends on where the function's name is written: the caller records it as a `uses:` fact
// (lint/dependencies.ts), so adding or removing a sibling relints. Cannot see: versions in other files,
// siblings told apart by a template parameter rather than a signature.
import type { FileIndex, FunctionInfo } from "../source/fileIndex";
import { usesOf } from "../../lint/dependencies";

/** A function's name as declared (`cuda_max` of `template<> half cuda_max(half2 v)`), if plain. */
export function declaredName(fn: FunctionInfo): string | undefined {
  let d = fn.node.childForFieldName("declarator");
  while (d && d.type !== "function_declarator") d = d.childForFieldName("declarator");
  const name = d?.childForFieldName("declarator")?.text;
  return name && /^[A-Za-z_][\w:]*$/.test(name) ? name : undefined;
}

/** The names of the file's device functions whose signature takes or returns an FP16 type (once per run). */
function fp16Signatures(idx: FileIndex): ReadonlySet<string> {
  return idx.shared("fp16Signatures", () => {
    const out = new Set<string>();
    for (const fn of idx.deviceFunctions()) {
      const signature = idx.text.slice(fn.start, fn.body.startIndex);
      const name = declaredName(fn);
      if (name && /\b(?:__)?half2?\b/.test(signature)) out.add(name);
    }
    return out;
  });
}

/** Is `fn` one of its per-type versions with an FP16 version beside it? */
export function hasFp16Version(idx: FileIndex, fn: FunctionInfo): boolean {
  for (let p = fn.node.parent; p; p = p.parent)
    if (
      p.type === "template_declaration" &&
      p.childForFieldName("parameters")?.text.replace(/\s/g, "") === "<>"
    )
      return true;
  const name = declaredName(fn);
  if (!name) return false;
  idx.reads(usesOf(name));
  return fp16Signatures(idx).has(name);
}
