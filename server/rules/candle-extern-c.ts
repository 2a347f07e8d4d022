// candle (opt-in: `[conventions] candle = true`): kernels are compiled with `nvcc -ptx` and loaded by name
// (`dev.get_or_load_func("my_kernel", PTX)`), so a kernel needs C linkage: without `extern "C"` its
// symbol in the PTX is the C++-mangled name and the load fails at run time.
// Kernels the same file launches itself (`k<<<…>>>`, cudaLaunchKernel(k, …)) are compiled into host
// code, like candle's moe and mmq kernels, and are not reported.
import type { Node } from "web-tree-sitter";
import type { Rule } from "./rule";
import { FileIndex } from "../analysis/source/fileIndex";
import { kernels } from "../analysis/launches/kernelSignature";
import { insertBefore, namedChildren } from "../analysis/source/nodes";

const IDENT: ReadonlySet<string> = new Set(["identifier"]);

const hasCLinkage = (fn: Node): boolean => {
  // extern "C" { #ifdef … kernel … #endif }: a few levels of blocks may sit in between
  for (let p = fn.parent, i = 0; p && i < 6; p = p.parent, i++)
    if (p.type === "linkage_specification") return p.childForFieldName("value")?.text === '"C"';
  return false;
};

/** A declarator's name (a prototype, an explicit instantiation), not a use of the kernel. */
const declares = (id: Node): boolean => {
  const p = id.parent;
  return (
    p?.type === "function_declarator" ||
    (p?.type === "template_function" && p.parent?.type === "function_declarator")
  );
};

/** The kernel's name is used outside its own definition: the file launches it or takes its address. */
function referencedElsewhere(idx: FileIndex, fn: Node, name: string): boolean {
  idx.readsWholeFile();
  for (const m of idx.scanAll(new RegExp(`\\b${name}\\b`, "g"))) {
    if (m.index >= fn.startIndex && m.index < fn.endIndex) continue;
    const id = idx.nodeAt(m.index, m.index + name.length);
    if (IDENT.has(id.type) && !declares(id)) return true;
  }
  return false;
}

export const candleExternC: Rule = {
  id: "candle-extern-c",
  defaultSeverity: "warning",
  basis: "heuristic",
  convention: "candle",
  summary:
    'candle loads kernels from PTX by name: a __global__ kernel without extern "C" has a mangled name and cannot be loaded.',
  check(ctx) {
    const idx = FileIndex.of(ctx);
    for (const sig of kernels(idx, new Map())) {
      const fn = sig.fn;
      if (hasCLinkage(fn) || referencedElsewhere(idx, fn, sig.name)) continue;
      const templated = fn.parent?.type === "template_declaration";
      const isStatic = namedChildren(fn).some(
        (c) => c.type === "storage_class_specifier" && c.text === "static",
      );
      const why = templated
        ? 'a template kernel has no C name: load an `extern "C"` kernel that instantiates it'
        : isStatic
          ? '`static` gives it internal linkage: drop `static` and declare it `extern "C"`'
          : 'declare it `extern "C"`';
      ctx.report({
        node: sig.nameNode,
        message: `\`${sig.name}\` is not \`extern "C"\`: its PTX symbol is the C++-mangled name, so \`get_or_load_func("${sig.name}", …)\` cannot find it; ${why}.`,
        fixes:
          templated || isStatic
            ? []
            : [
                {
                  title: 'Declare the kernel extern "C"',
                  isPreferred: true,
                  edits: [insertBefore(fn, 'extern "C" ')],
                },
              ],
      });
    }
  },
};
