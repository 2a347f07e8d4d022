// A kernel's name and parameters as written: for the project-convention rules, which read what a
// kernel's name and linkage promise about how it is called.
import type { Node } from "web-tree-sitter";
import type { FileIndex } from "../source/fileIndex";
import { declaredName, namedChildren } from "../source/nodes";

export interface Param {
  name: string;
  /** The pointee (or value) type as written, aliases resolved, e.g. "__half", "unsigned char". */
  type: string;
  /** A pointer or array parameter. */
  pointer: boolean;
  /** `const T*` / `T const*`: the kernel only reads through it. */
  constPointee: boolean;
}

export interface KernelSignature {
  /** The kernel's function_definition. */
  fn: Node;
  name: string;
  nameNode: Node;
  params: Param[];
  /** The enclosing template's type parameters (their pointees have no fixed dtype). */
  templateTypes: ReadonlySet<string>;
}

const FUNCTION_DECLARATOR = "function_declarator";

/** The function declarator of a definition, through pointer/reference return types. */
function functionDeclarator(fn: Node): Node | undefined {
  let d = fn.childForFieldName("declarator");
  for (let i = 0; d && i < 8; i++) {
    if (d.type === FUNCTION_DECLARATOR) return d;
    d = d.childForFieldName("declarator");
  }
  return undefined;
}

function templateTypes(fn: Node): Set<string> {
  const out = new Set<string>();
  const tpl = fn.parent?.type === "template_declaration" ? fn.parent : undefined;
  const list = tpl?.childForFieldName("parameters");
  for (const p of list ? namedChildren(list) : []) {
    if (!p.type.includes("type_parameter")) continue;
    const name = p.childForFieldName("name") ?? namedChildren(p).find((c) => c.type === "type_identifier");
    if (name) out.add(name.text);
  }
  return out;
}

function param(decl: Node, resolve: (type: string) => string): Param | undefined {
  const typeNode = decl.childForFieldName("type");
  const declarator = decl.childForFieldName("declarator");
  const name = declaredName(declarator);
  if (!typeNode || !name) return undefined;
  // `const` next to the type (either side of it) qualifies the pointee; one after `*` the pointer.
  const constPointee = namedChildren(decl).some((c) => c.type === "type_qualifier" && c.text === "const");
  let pointer = false;
  for (let d: Node | null = declarator; d && d.id !== name.id; d = d.childForFieldName("declarator"))
    if (d.type === "pointer_declarator" || d.type === "array_declarator") pointer = true;
  const type = resolve(typeNode.text.replace(/^struct\s+/, "").replace(/\s+/g, " "));
  return { name: name.text, type, pointer, constPointee };
}

/** `typedef X Y;` and `using Y = X;` at any level of the file: alias → what it names. */
export function typeAliases(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(/\btypedef\s+(?:const\s+)?([\w:]+(?:\s+[\w:]+)?)\s+(\w+)\s*;/g))
    out.set(m[2]!, m[1]!.replace(/^struct\s+/, ""));
  for (const m of text.matchAll(/\busing\s+(\w+)\s*=\s*(?:const\s+)?([\w:]+(?:\s+[\w:]+)?)\s*;/g))
    out.set(m[1]!, m[2]!.replace(/^struct\s+/, ""));
  return out;
}

/** The kernel's signature; undefined when its declarator cannot be read (macros, broken code). */
export function kernelSignature(fn: Node, aliases: ReadonlyMap<string, string>): KernelSignature | undefined {
  const fd = functionDeclarator(fn);
  const id = fd?.childForFieldName("declarator");
  const nameNode = id?.type === "qualified_identifier" ? (id.childForFieldName("name") ?? id) : id;
  const list = fd?.childForFieldName("parameters");
  if (!nameNode || !list || !/^\w+$/.test(nameNode.text)) return undefined;
  const resolve = (type: string): string => {
    let t = type;
    for (let i = 0; i < 4 && aliases.has(t); i++) t = aliases.get(t)!;
    return t;
  };
  const params = namedChildren(list).flatMap((c) =>
    c.type === "parameter_declaration" ? (param(c, resolve) ?? []) : [],
  );
  return { fn, name: nameNode.text, nameNode, params, templateTypes: templateTypes(fn) };
}

/** The `__global__` kernels defined in the run's window, with their signatures (unreadable ones left out). */
export function* kernels(idx: FileIndex, aliases: ReadonlyMap<string, string>): Generator<KernelSignature> {
  for (const k of idx.deviceFunctions()) {
    const sig = k.space === "global" ? kernelSignature(k.node, aliases) : undefined;
    if (sig) yield sig;
  }
}
