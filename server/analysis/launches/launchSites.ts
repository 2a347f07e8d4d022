// Where the file launches a kernel, when that is all it does with it: every use of the kernel's name in
// the code is its declaration or a `<<<…>>>` launch (any other use, a function pointer handed to
// cudaLaunchKernel or cudaFuncSetAttribute, leaves the launches unknown). From those: whether the kernel
// runs as one block (every launch's grid is one block: `<<<1, …>>>`, `dim3(1)`, a name bound to 1). Read
// from the code of the whole file; answers depend on where the name is written (lint/dependencies.ts
// usesOf).
// Cannot see: launches from other files (a kernel the file does not launch has no launches here),
// launches through a macro, template arguments with nested brackets, overloads or templates of one name
// launched differently (one name here).
import type { Node } from "web-tree-sitter";
import { usesOf } from "../../lint/dependencies";
import { Constants } from "../constants/constEval";
import { isSpaceCode, isWordCode } from "../source/charCodes";
import { codeOnly } from "../source/codeText";
import type { FileIndex } from "../source/fileIndex";
import { wordOffsets } from "../source/textScans";

/** After the name: template arguments (no nested brackets or parentheses), then `<<<` or `(` (sticky). */
const USE_TAIL = /\s*(?:<[^;{}()<>]*>\s*)?(<<<|\()/y;
const KERNEL_CALL: ReadonlySet<string> = new Set(["kernel_call_syntax"]);

/** One launch: its `<<<…>>>` configuration and the call (for its arguments). */
export interface LaunchSite {
  syntax: Node;
  call: Node;
}

/**
 * The names written before a `<<<` in the file's code, as USE_TAIL reads them (template arguments without
 * nested brackets between): one scan for all the kernels a run asks of.
 */
function launchedNames(idx: FileIndex): ReadonlySet<string> {
  return idx.shared("launchedNames", () => {
    const code = codeOnly(idx.text);
    const out = new Set<string>();
    for (let at = code.indexOf("<<<"); at >= 0; at = code.indexOf("<<<", at + 3)) {
      let end = at;
      while (end > 0 && isSpaceCode(code.charCodeAt(end - 1))) end--;
      if (code[end - 1] === ">") {
        const open = code.lastIndexOf("<", end - 2);
        if (open < 0 || /[;{}()<>]/.test(code.slice(open + 1, end - 1))) continue;
        end = open;
        while (end > 0 && isSpaceCode(code.charCodeAt(end - 1))) end--;
      }
      let start = end;
      while (start > 0 && isWordCode(code.charCodeAt(start - 1))) start--;
      if (start < end) out.add(code.slice(start, end));
    }
    return out;
  });
}

/**
 * The launches of kernel `name` in the file, when every use of the name is its declaration or a launch
 * (none when the file never launches it); undefined otherwise.
 */
export function launchSites(idx: FileIndex, name: string): readonly LaunchSite[] | undefined {
  idx.reads(usesOf(name));
  if (!launchedNames(idx).has(name)) return [];
  return idx.shared(`launchSites:${name}`, () => {
    const code = codeOnly(idx.text);
    const out: LaunchSite[] = [];
    for (const at of wordOffsets(code, name, 0, code.length)) {
      USE_TAIL.lastIndex = at + name.length;
      const m = USE_TAIL.exec(code);
      if (!m) return undefined; // its address, an argument: launched some other way
      if (m[1] === "(") continue; // a declaration (a kernel is called only with <<<…>>>)
      const open = USE_TAIL.lastIndex - 3;
      const syntax = idx.ownerOf(open, open + 3, KERNEL_CALL) ?? idx.nodeAt(open, open + 3).parent;
      const call = syntax?.parent;
      if (syntax?.type !== "kernel_call_syntax" || call?.type !== "call_expression") return undefined;
      out.push({ syntax, call });
    }
    return out;
  });
}

/** Is kernel `name` launched in the file, and only with a grid of one block? */
export function launchedAsOneBlock(idx: FileIndex, name: string): boolean {
  const sites = launchSites(idx, name);
  if (!sites || sites.length === 0) return false;
  const consts = Constants.of(idx);
  return sites.every(({ syntax }) => {
    const grid = syntax.namedChildren.find((n): n is Node => !!n && n.type !== "comment");
    const dims = grid && consts.dims(grid);
    return !!dims && dims.every((d) => d === 1);
  });
}
