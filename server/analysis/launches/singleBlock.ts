// Whether a kernel runs as one block: the file launches it, and every launch has a grid of one block
// (`<<<1, …>>>`, `dim3(1)`, a name bound to 1). Any other use of its name (a function pointer handed to
// cudaLaunchKernel or cudaFuncSetAttribute, a launch whose grid is not known at lint time) makes the
// answer no. Read from the code of the whole file; findings that use it depend on where the name is
// written (lint/dependencies.ts usesOf).
// Cannot see: launches from other files (a kernel the file does not launch is not single-block here),
// launches through a macro, overloads or templates of one name launched differently (one name here).
import type { Node } from "web-tree-sitter";
import { usesOf } from "../../lint/dependencies";
import { Constants } from "../constants/constEval";
import { codeOnly } from "../source/codeText";
import type { FileIndex } from "../source/fileIndex";
import { wordOffsets } from "../source/textScans";

/** After the name: template arguments (no nested brackets or parentheses), then `<<<` or `(` (sticky). */
const USE_TAIL = /\s*(?:<[^;{}()<>]*>\s*)?(<<<|\()/y;
const KERNEL_CALL: ReadonlySet<string> = new Set(["kernel_call_syntax"]);

/** Is every use of kernel `name` in the file its declaration or a launch of one block, with one launch at least? */
export function launchedAsOneBlock(idx: FileIndex, name: string): boolean {
  idx.reads(usesOf(name));
  return idx.shared(`oneBlock:${name}`, () => {
    const code = codeOnly(idx.text);
    let launches = 0;
    for (const at of wordOffsets(code, name, 0, code.length)) {
      USE_TAIL.lastIndex = at + name.length;
      const m = USE_TAIL.exec(code);
      if (!m) return false; // its address, an argument: launched some other way
      if (m[1] === "(") continue; // a declaration (a kernel is called only with <<<…>>>)
      const open = USE_TAIL.lastIndex - 3;
      if (!oneBlock(idx, open)) return false;
      launches++;
    }
    return launches > 0;
  });
}

/** Is the grid of the launch whose `<<<` is at `open` one block? */
function oneBlock(idx: FileIndex, open: number): boolean {
  const syntax = idx.ownerOf(open, open + 3, KERNEL_CALL) ?? idx.nodeAt(open, open + 3).parent;
  if (syntax?.type !== "kernel_call_syntax") return false;
  const grid = syntax.namedChildren.find((n): n is Node => !!n && n.type !== "comment");
  const dims = grid && Constants.of(idx).dims(grid);
  return !!dims && dims.every((d) => d === 1);
}
