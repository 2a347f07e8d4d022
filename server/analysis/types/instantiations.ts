// Which types a template function's type parameters stand for in this file: read from its
// instantiations, never from a same-named alias elsewhere. Every `NAME<args>` of the file's code counts:
// an explicit instantiation (`template __global__ void k<__half>(…);`), a launch (`k<__half><<<…>>>`), a
// call (`f<half>(…)`), a function's address. An argument is resolved through the 16-bit type names
// (`__half`, `at::Half`…), the aliases visible at that place (aliasScopes.ts), the dispatch macro call
// around it (dispatch.ts: `k<scalar_t>` inside AT_DISPATCH_…_AND2(Half, BFloat16, …)), and the type
// parameters of the template function it lies in (`launch<T>` → `k<T>`: what `launch` is instantiated
// with). A parameter with no instantiation seen is unknown (empty). Not seen: deduced arguments
// from a launch or call (`k<<<…>>>(half_ptr)`; an explicit instantiation's are: `template void
// f(half*, int);`), instantiations in other files, class templates' member functions.
import type { Node } from "web-tree-sitter";
import type { FileIndex } from "../source/fileIndex";
import { codeOnly } from "../source/codeText";
import type { DeclEnv } from "./declEnv";
import { halfKindOfType, isIdentifier, type HalfKind } from "./halfTypes";
import { scopedAliases, scopedKindAt } from "./aliasScopes";
import { boundAt, closingParen, dispatchCalls } from "./dispatch";

/** One type a parameter is instantiated with: as written, its 16-bit kind (if any), where, and through what. */
export interface Instantiation {
  type: string;
  kind: HalfKind | undefined;
  /** Offset of the instantiation that fixed the type (the outermost, through templated launchers). */
  at: number;
  /** The dispatch macro that bound it, if one did. */
  via?: string;
}

/** PyTorch's 16-bit types: 2-byte elements like __half and __nv_bfloat16. */
const TORCH_KIND: Readonly<Record<string, HalfKind>> = {
  "at::Half": "half",
  "c10::Half": "half",
  "torch::Half": "half",
  "at::BFloat16": "bf16",
  "c10::BFloat16": "bf16",
  "torch::BFloat16": "bf16",
};

const PARAM_TYPES: ReadonlySet<string> = new Set([
  "type_parameter_declaration",
  "optional_type_parameter_declaration",
]);

/** The template parameters of a function definition, in order: type parameters by name, others as "". */
export function templateTypeParams(fn: Node): string[] | undefined {
  const decl = fn.parent;
  if (decl?.type !== "template_declaration") return undefined;
  const list = decl.childForFieldName("parameters");
  if (!list) return undefined;
  return list.namedChildren.map((p) => {
    if (!p || !PARAM_TYPES.has(p.type)) return "";
    return (p.childForFieldName("name") ?? p.namedChildren.find((c) => c?.type === "type_identifier"))?.text ?? "";
  });
}

/** A function definition's name (the last part of a qualified one). */
export function functionName(fn: Node): string | undefined {
  let d = fn.childForFieldName("declarator");
  for (let i = 0; d && i < 6 && d.type !== "function_declarator"; i++) d = d.childForFieldName("declarator");
  const name = d?.childForFieldName("declarator");
  return name?.text.split("::").pop()?.trim();
}

/** The top-level arguments of the template argument list opening at `lt`, or undefined where it is none. */
function templateArgs(code: string, lt: number): string[] | undefined {
  const args: string[] = [];
  let depth = 0;
  let start = lt + 1;
  for (let i = lt; i < code.length; i++) {
    const c = code[i]!;
    if (c === "<" || c === "(") depth++;
    else if (c === ">" || c === ")") {
      depth--;
      if (depth === 0) {
        if (c !== ">") return undefined;
        args.push(code.slice(start, i).trim());
        return args;
      }
    } else if (c === ";" || c === "{" || c === "}") return undefined;
    else if (c === "," && depth === 1) {
      args.push(code.slice(start, i).trim());
      start = i + 1;
    }
  }
  return undefined;
}

/** `text` split at its top-level commas. */
function splitTop(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "(" || c === "<" || c === "[") depth++;
    else if (c === ")" || c === ">" || c === "]") depth--;
    else if (c === "," && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.map((p) => p.trim()).filter((p) => p !== "");
}

/** A parameter's type with qualifiers, `*`/`&` and its name removed: `const half* __restrict__ x` → `half`. */
function bareType(param: string): { type: string; stars: number } {
  const stars = (param.match(/[*&]/g) ?? []).length;
  const words = param
    .replace(/\b(?:const|volatile|__restrict__|__restrict|restrict|typename|struct)\b/g, " ")
    .replace(/[*&]/g, " ")
    .trim()
    .split(/\s+/);
  // `unsigned int x`, `half* x`: the last word is the name when there are two or more.
  return { type: (words.length > 1 ? words.slice(0, -1) : words).join(" "), stars };
}

/** What an explicit instantiation's parameter list `written` makes type parameter `param` of `fn`. */
function deduced(fn: Node, param: string, written: readonly string[]): string | undefined {
  let d = fn.childForFieldName("declarator");
  for (let i = 0; d && i < 6 && d.type !== "function_declarator"; i++) d = d.childForFieldName("declarator");
  const declared = splitTop(d?.childForFieldName("parameters")?.text.slice(1, -1) ?? "");
  for (let i = 0; i < declared.length && i < written.length; i++) {
    const a = bareType(declared[i]!);
    const b = bareType(written[i]!);
    if (a.type === param && a.stars === b.stars) return b.type;
  }
  return undefined;
}

const OTHER_TYPE = /^(?:float|double|bool|char|short|int|long|unsigned|signed|size_t|u?int(?:8|16|32|64)_t|float[1-4]|half2|__half2)\b/;

export class Instantiations {
  private readonly code: string;
  private readonly memo = new Map<string, Instantiation[]>();

  constructor(
    private readonly idx: FileIndex,
    private readonly env: DeclEnv,
  ) {
    this.code = codeOnly(idx.text);
  }

  /** What type parameter `index` of the template function `fn` is instantiated with (empty: unknown). */
  of(fn: Node, index: number, seen: ReadonlySet<string> = new Set()): Instantiation[] {
    const name = functionName(fn);
    if (!name) return [];
    const key = `${name}#${index}`;
    const known = this.memo.get(key);
    if (known) return known;
    if (seen.has(key)) return [];
    const inner = new Set([...seen, key]);
    const out: Instantiation[] = [];
    const word = name.replace(/\W/g, "");
    for (const m of this.code.matchAll(new RegExp(`(?<![\\w.])${word}\\s*<`, "g"))) {
      const lt = m.index + m[0].length - 1;
      if (this.code.startsWith("<<", lt + 1)) continue; // `k<<<…>>>`: no template arguments
      const arg = templateArgs(this.code, lt)?.[index];
      if (arg) out.push(...this.resolve(arg, m.index, inner));
    }
    // `template void f(half* out, …);`: an explicit instantiation whose arguments are deduced.
    const param = templateTypeParams(fn)?.[index];
    for (const m of this.code.matchAll(new RegExp(`\\btemplate\\s+(?!<)[^;{}()<>]*?\\b${word}\\s*\\(`, "g"))) {
      const open = m.index + m[0].length - 1;
      const written = splitTop(this.code.slice(open + 1, closingParen(this.code, open)));
      const type = param ? deduced(fn, param, written) : undefined;
      if (type) out.push(...this.resolve(type, m.index, inner));
    }
    if (seen.size === 0) this.memo.set(key, out);
    return out;
  }

  /** The types a template argument written at `at` stands for. */
  private resolve(arg: string, at: number, seen: ReadonlySet<string>): Instantiation[] {
    const t = arg.replace(/\b(?:const|volatile|typename|struct|class)\b/g, "").trim();
    if (/[*&[(]/.test(t)) return [{ type: t, kind: undefined, at }];
    const kind = halfKindOfType(t) ?? TORCH_KIND[t];
    if (kind || OTHER_TYPE.test(t)) return [{ type: t, kind, at }];
    if (!isIdentifier(t)) return [];
    const fileKinds = new Map([...this.env.halfAliases].map(([n, a]) => [n, a.kind]));
    const scoped = scopedKindAt(scopedAliases(this.idx, fileKinds), t, at);
    if (scoped !== undefined) return [{ type: t, kind: scoped ?? undefined, at }];
    const alias = this.env.halfAliases.get(t);
    if (alias) return [{ type: t, kind: alias.kind, at }];
    const dispatched = boundAt(dispatchCalls(this.idx, this.env), t, at);
    if (dispatched)
      return dispatched.types.flatMap((type) =>
        this.resolve(type, at, seen).map((i) => ({ ...i, via: dispatched.call.name })),
      );
    const fn = this.idx.functionSpanAt(at)?.node;
    const index = (fn && templateTypeParams(fn)?.indexOf(t)) ?? -1;
    return fn && index >= 0 ? this.of(fn, index, seen) : [];
  }
}

/** The file's instantiation reading (one per run, shared by the rules). */
export function instantiations(idx: FileIndex, env: DeclEnv): Instantiations {
  return idx.shared("instantiations", () => new Instantiations(idx, env));
}
