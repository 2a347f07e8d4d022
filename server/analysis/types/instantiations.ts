// Which types a template function's type parameters stand for in this file: read from its
// instantiations, never from a same-named alias elsewhere. Every `NAME<args>` of the file's code counts:
// an explicit instantiation (`template __global__ void k<__half>(…);`), a launch (`k<__half><<<…>>>`), a
// call (`f<half>(…)`), a function's address. An argument is resolved through the 16-bit type names
// (`__half`, `at::Half`…), the aliases visible at that place (aliasScopes.ts), the dispatch macro call
// around it (dispatch.ts: `k<scalar_t>` inside AT_DISPATCH_…_AND2(Half, BFloat16, …)), and the type
// parameters of the template function it lies in (`launch<T>` → `k<T>`: what `launch` is instantiated
// with). An argument list the file specializes explicitly (`template <> __global__ void k<__half>(…)`)
// is not an instantiation of the primary template: `k<__half>` runs the specialization's body. A
// parameter with no instantiation seen is unknown (empty). Not seen: deduced arguments
// from a launch or call (`k<<<…>>>(half_ptr)`; an explicit instantiation's are: `template void
// f(half*, int);`), instantiations in other files, class templates' member functions.
import { splitTopLevel } from "../source/textScans";
import type { Node } from "web-tree-sitter";
import type { FileIndex, FunctionSpan } from "../source/fileIndex";
import { isSpaceCode, isWordCode } from "../source/charCodes";
import { codeOnly } from "../source/codeText";
import type { DeclEnv } from "./declEnv";
import { halfKindOfType, isIdentifier, type HalfKind } from "./halfTypes";
import { scopedAliasAt, scopedAliases } from "./aliasScopes";
import { boundAt, closingParen, dispatchCalls } from "./dispatch";
import { usesOf } from "../../lint/dependencies";

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

/** `template <…>` ending just before a definition (group 1: the parameter list). */
const TEMPLATE_HEAD = /\btemplate\s*<((?:[^<>]|<(?:[^<>]|<[^<>]*>)*>)*)>\s*$/;
/** A type parameter: `typename T`, `class T = float` (group 1: T); `typename... Ts` is a pack (no name). */
const TYPE_PARAM = /^(?:typename|class)\s+([A-Za-z_]\w*)\s*(?:=.*)?$/s;

/**
 * The template parameters of the function definition starting at `start` (its `template <…>` header just
 * before it, read from the code text), in order: type parameters by name, others as "".
 */
export function templateTypeParams(code: string, start: number): string[] | undefined {
  const m = TEMPLATE_HEAD.exec(code.slice(Math.max(0, start - 400), start));
  if (!m) return undefined;
  if (m[1]!.trim() === "") return [];
  return splitTop(m[1]!).map((p) => TYPE_PARAM.exec(p)?.[1] ?? "");
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

const [LT, EQ, DOT] = [60, 61, 46];
const isDigitCode = (c: number): boolean => c >= 48 && c <= 57;

/** `template RET NAME(`: an explicit instantiation's head with no template arguments (group 1: NAME). */
const EXPLICIT = /^template\s+(?!<)[^;{}()<>]*?\b([A-Za-z_]\w*)\s*\(/;

/** Offsets of `word` as a whole word in `code`. */
function wordsAt(code: string, word: string): number[] {
  const out: number[] = [];
  for (let at = code.indexOf(word); at >= 0; at = code.indexOf(word, at + 1)) {
    const end = at + word.length;
    if ((at === 0 || !/\w/.test(code[at - 1]!)) && !/\w/.test(code[end] ?? "")) out.push(at);
  }
  return out;
}

/** `text` split at its top-level commas (template argument lists nest too). */
function splitTop(text: string): string[] {
  return splitTopLevel(text, "(<[", ")>]")
    .map((p) => p.trim())
    .filter((p) => p !== "");
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

const OTHER_TYPE =
  /^(?:float|double|bool|char|short|int|long|unsigned|signed|size_t|u?int(?:8|16|32|64)_t|float[1-4]|half2|__half2)\b/;

export class Instantiations {
  private readonly code: string;

  constructor(
    private readonly idx: FileIndex,
    private readonly env: DeclEnv,
  ) {
    this.code = codeOnly(idx.text);
  }

  /**
   * What type parameter `index` of the template function `fn` is instantiated with (empty: unknown).
   * The answer depends on the places the function's name is written (and, through templated launchers,
   * their names): the running rule records them as `uses:` facts, not as the whole file, so that an edit
   * elsewhere does not relint it (lint/dependencies.ts).
   */
  of(fn: FunctionSpan, index: number, seen: ReadonlySet<string> = new Set()): Instantiation[] {
    const name = functionName(fn.node);
    if (!name) return [];
    const key = `${name}#${index}`;
    if (seen.size === 0)
      return this.idx.shared(`instantiations:${key}`, () => this.read(fn, name, index, new Set([key])));
    return seen.has(key) ? [] : this.read(fn, name, index, new Set([...seen, key]));
  }

  private read(fn: FunctionSpan, name: string, index: number, seen: ReadonlySet<string>): Instantiation[] {
    this.idx.reads(usesOf(name));
    const out: Instantiation[] = [];
    const sites = this.templateIds().get(name) ?? [];
    // `template <> __global__ void k<__half>(…) {…}`: k<__half> names that definition, not the primary's body.
    const specs = sites
      .filter(({ at }) => specializes(this.code, at))
      .map(({ lt }) => argList(this.code, lt));
    for (const { at, lt } of sites) {
      const args = argList(this.code, lt);
      const arg = args[index];
      if (!arg) continue;
      const others = args.filter((_, k) => k !== index).join(",");
      const mine = specs.filter(
        (sp) => sp.length === args.length && sp.filter((_, k) => k !== index).join(",") === others,
      );
      for (const i of this.resolve(arg, at, seen))
        if (!mine.some((sp) => sameType(sp[index]!, i))) out.push(i);
    }
    // `template void f(half* out, …);`: an explicit instantiation whose arguments are deduced.
    const param = templateTypeParams(this.code, fn.start)?.[index];
    for (const { at, open } of this.explicit().get(name) ?? []) {
      const written = splitTop(this.code.slice(open + 1, closingParen(this.code, open)));
      const type = param ? deduced(fn.node, param, written) : undefined;
      if (type) out.push(...this.resolve(type, at, seen));
    }
    return out;
  }

  private explicitList: Map<string, { at: number; open: number }[]> | undefined;
  private ids: Map<string, { at: number; lt: number }[]> | undefined;

  /**
   * Every `NAME <` of the code that may open template arguments, by NAME (at: the name, lt: the `<`):
   * found once from the `<`s, not searched per name (`a < b` is listed too; its arguments do not parse).
   */
  private templateIds(): Map<string, { at: number; lt: number }[]> {
    if (this.ids) return this.ids;
    const out = new Map<string, { at: number; lt: number }[]>();
    const code = this.code;
    for (let lt = code.indexOf("<"); lt >= 0; lt = code.indexOf("<", lt + 1)) {
      const next = code.charCodeAt(lt + 1);
      if (next === LT || next === EQ || code.charCodeAt(lt - 1) === LT) continue; // `<<`, `<=`: no arguments
      let end = lt;
      while (end > 0 && isSpaceCode(code.charCodeAt(end - 1))) end--;
      let at = end;
      while (at > 0 && isWordCode(code.charCodeAt(at - 1))) at--;
      // No name, a number, a member's name.
      if (at === end || isDigitCode(code.charCodeAt(at)) || code.charCodeAt(at - 1) === DOT) continue;
      const name = code.slice(at, end);
      const list = out.get(name);
      if (list) list.push({ at, lt });
      else out.set(name, [{ at, lt }]);
    }
    this.ids = out;
    return out;
  }

  /** The explicit instantiations without template arguments (`template void f(half*, int);`), by name. */
  private explicit(): Map<string, { at: number; open: number }[]> {
    if (this.explicitList) return this.explicitList;
    const out = new Map<string, { at: number; open: number }[]>();
    for (const at of wordsAt(this.code, "template")) {
      const m = EXPLICIT.exec(this.code.slice(at, at + 400));
      if (!m) continue;
      const open = at + m[0].length - 1;
      out.set(m[1]!, [...(out.get(m[1]!) ?? []), { at, open }]);
    }
    this.explicitList = out;
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
    const scoped = scopedAliasAt(scopedAliases(this.idx, fileKinds), t, at);
    if (scoped?.kind) return [{ type: t, kind: scoped.kind, at }];
    if (scoped) {
      // `using query_t = scalar_t;` in a dispatch lambda: what its type stands for where it is defined.
      const key = `alias:${t}@${scoped.from}`;
      return seen.has(key) ? [] : this.resolve(scoped.type, scoped.from, new Set([...seen, key]));
    }
    const alias = this.env.halfAliases.get(t);
    if (alias) return [{ type: t, kind: alias.kind, at }];
    const dispatched = boundAt(dispatchCalls(this.idx, this.env), t, at);
    if (dispatched)
      return dispatched.types.flatMap((type) =>
        this.resolve(type, at, seen).map((i) => ({ ...i, via: dispatched.call.name })),
      );
    const fn = this.idx.functionSpanAt(at);
    const index = (fn && templateTypeParams(this.code, fn.start)?.indexOf(t)) ?? -1;
    return fn && index >= 0 ? this.of(fn, index, seen) : [];
  }
}

/** Is the `NAME<` at `at` the name of an explicit specialization (`template <>` before it, in its declaration)? */
function specializes(code: string, at: number): boolean {
  const start = Math.max(code.lastIndexOf(";", at), code.lastIndexOf("}", at), code.lastIndexOf("{", at));
  return /\btemplate\s*<\s*>/.test(code.slice(start + 1, at));
}

/** A template argument list, spaces dropped (`<__half, 4>` → `__half`, `4`). */
function argList(code: string, lt: number): string[] {
  return (templateArgs(code, lt) ?? []).map((a) => a.replace(/\s+/g, ""));
}

/** Does the type written in a specialization's arguments name the instantiation's type? */
function sameType(written: string, i: Instantiation): boolean {
  const kind = halfKindOfType(written) ?? TORCH_KIND[written];
  return written === i.type.replace(/\s+/g, "") || (kind !== undefined && kind === i.kind);
}

/** The file's instantiation reading (one per run, shared by the rules). */
export function instantiations(idx: FileIndex, env: DeclEnv): Instantiations {
  return idx.shared("instantiations", () => new Instantiations(idx, env));
}
