// Which `extern __shared__` arrays a file declares at file scope (outside any function): every kernel of
// the file that names one shares it. A part of the whole-file context (lint/fileContext.ts), so an edit
// that adds or removes one relints the rules that read it. Cannot see: declarations in included headers.
import { isWordCode } from "../source/charCodes";
import type { FileIndex } from "../source/fileIndex";
import { codeOnly } from "../source/codeText";

/** `extern __shared__ T name[];`, matched where an `extern` starts (sticky; group: the name). */
const EXTERN_SHARED = /extern\s+__shared__\b[^;]*?(\w+)\s*\[\s*\]\s*;/y;

/** `extern __shared__` arrays declared outside any function, once per file (a part of the file context). */
export function fileScopeShared(idx: FileIndex): ReadonlySet<string> {
  idx.reads("context:externShared");
  return idx.shared("fileScopeShared", () => {
    const out = new Set<string>();
    // at each "extern" (found by its rarer "xtern": a search for "extern" stops at every `e`)
    const text = codeOnly(idx.text); // a commented-out declaration declares nothing
    for (let x = text.indexOf("xtern", 1); x >= 0; x = text.indexOf("xtern", x + 5)) {
      const at = x - 1;
      if (text[at] !== "e" || isWordCode(text.charCodeAt(at - 1))) continue;
      EXTERN_SHARED.lastIndex = at;
      const m = EXTERN_SHARED.exec(text);
      if (!m) continue;
      if (!idx.deviceFunctionAt(at)) out.add(m[1]!);
      x = EXTERN_SHARED.lastIndex - 5;
    }
    return out;
  });
}
