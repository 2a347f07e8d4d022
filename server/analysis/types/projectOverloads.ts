// Whether a call names one of the project's own functions rather than a toolkit intrinsic of that name:
// the file defines or declares a function so named in code a CUDA compilation sees (archGuard.ts
// inDeadCode: not under `#ifdef USE_ROCM`), or a project header it includes defines one (declEnv.ts
// headerFunctions). C++ finds such a function wherever the intrinsic is not declared, and converts the
// argument to its parameter where it can (c10::Half from float or __half). Which calls a definition
// covers: every call, except where the file's own definitions give the first parameter's type, the
// call's first argument has a type read here (a name declared in the calling function, `x.operator T()`,
// a cast, a literal), and no definition's type is one it converts to. Converting: the same type, any
// type to a template parameter or `auto`, and scalars into one another (the arithmetic types and the
// 16-bit ones: float to c10::Half, __half to at::Half); not a scalar to a built-in vector type (float2,
// __half2) or back, nor one vector type to another. A class type it does not know may convert: covered.
// It cannot see parameter types of a header's
// definitions (only names and bodies are read there), whether a header's definition sits under a HIP-only
// `#if`, namespaces (a function in `namespace ns` counts for a call outside it) or overload resolution
// beyond the first argument.
import type { Node } from "web-tree-sitter";
import type { LintContext } from "../../rules/rule";
import { FileIndex } from "../source/fileIndex";
import { usesOf } from "../../lint/dependencies";
import { inDeadCode } from "../preprocessor/archGuard";
import { lintMacroEnv } from "../preprocessor/macroEnv";
import { declEnv } from "./declEnv";
import { callArguments, unparen } from "../source/nodes";

/** What the project defines under a name: whether it does, and the first parameter's types where read. */
export interface ProjectFunction {
  /** The types its own definitions take first (normalized); undefined: some definition's is not read. */
  takes: ReadonlySet<string> | undefined;
}

/** A type any argument converts to: a template parameter or `auto` (marked so). */
const ANY = "*";

/** The 16-bit families whose types convert into one another implicitly (c10's Half from and to __half). */
const FAMILY: Readonly<Record<string, string>> = {
  __half: "half",
  half: "half",
  Half: "half",
  "at::Half": "half",
  "c10::Half": "half",
  __nv_bfloat16: "bf16",
  nv_bfloat16: "bf16",
  BFloat16: "bf16",
  "at::BFloat16": "bf16",
  "c10::BFloat16": "bf16",
};

/** The arithmetic types and the 16-bit families (normalized): each converts to every other. */
const SCALAR =
  /^(?:half|bf16|bool|char|short|int|long|unsigned|signed|float|double|size_t|u?int(?:8|16|32|64)_t|(?:unsigned|signed|long|short|int|char)+)$/;
/** CUDA's built-in vector types and the 16-bit pairs: no scalar converts to one, nor one to another. */
const VECTOR =
  /^(?:(?:u?char|u?short|u?int|u?long|u?longlong|float|double)[1-4]|__half2|half2|__nv_bfloat162|nv_bfloat162)$/;

/** Whether an argument of type `arg` converts to a parameter of type `param`: true, false, or unknown. */
function converts(arg: string, param: string): boolean | undefined {
  if (arg === param || param === ANY) return true;
  const kind = (t: string): string => (SCALAR.test(t) ? "scalar" : VECTOR.test(t) ? "vector" : "other");
  const [a, p] = [kind(arg), kind(param)];
  if (a === "other" || p === "other") return undefined;
  return a === "scalar" && p === "scalar";
}

/** A type's text without cv-qualifiers, references and spaces, its 16-bit family for those. */
function normalized(type: string): string {
  const bare = type.replace(/\b(?:const|volatile|struct|class)\b|&/g, "").replace(/\s+/g, "");
  return FAMILY[bare] ?? bare;
}

/** The template parameter names around a definition. */
function templateParams(idx: FileIndex, def: Node): Set<string> {
  const out = new Set<string>();
  for (let p = def.parent; p; p = p.parent) {
    if (p.type !== "template_declaration") continue;
    const params = p.childForFieldName("parameters");
    for (const d of params?.namedChildren ?? []) {
      const name = d?.namedChildren.find((c) => c?.type === "type_identifier");
      if (name) out.add(idx.textOf(name));
    }
  }
  return out;
}

/** The first parameter's type of a function declarator (ANY for a template parameter or `auto`). */
function firstParamType(idx: FileIndex, declarator: Node, def: Node): string | undefined {
  const first = declarator.childForFieldName("parameters")?.namedChildren[0];
  const type = first?.type === "parameter_declaration" ? first.childForFieldName("type") : null;
  if (!type) return undefined;
  const text = idx.textOf(type);
  return text === "auto" || templateParams(idx, def).has(text) ? ANY : normalized(text);
}

/** The file's own definitions and declarations of a function `name` in code some compilation sees. */
function ownDefinitions(idx: FileIndex, ctx: LintContext, name: string): [Node, Node][] {
  const out: [Node, Node][] = [];
  for (const at of idx.scan(new RegExp(`\\b${name}\\b`, "g"), 0, idx.text.length)) {
    const id = idx.nodeAt(at.index, at.index + name.length);
    const declarator = id.parent;
    if (id.type !== "identifier" || declarator?.type !== "function_declarator") continue;
    const def = declarator.parent;
    if (def?.type === "function_definition" || def?.type === "declaration") out.push([declarator, def]);
  }
  if (out.length === 0) return out;
  const dead = inDeadCode(
    ctx.tree,
    ctx.text,
    ctx.build.targets === "none" ? undefined : ctx.targets,
    lintMacroEnv(ctx.build, ctx.targets),
    out.map(([d]) => d.startPosition),
    { fileName: ctx.fileName, headerRoot: ctx.options.headerRoot, includeDirs: ctx.build.includeDirs },
  );
  return out.filter((_, i) => !dead[i]);
}

/** The function the project defines as `name` (the file's own, or a project header's), if any. */
export function projectFunction(ctx: LintContext, name: string): ProjectFunction | undefined {
  const idx = FileIndex.of(ctx);
  idx.reads(usesOf(name));
  return idx.shared(`projectFunction:${name}`, () => {
    const own = ownDefinitions(idx, ctx, name);
    const inHeaders = declEnv(ctx).headerFunctions.has(name);
    if (own.length === 0 && !inHeaders) return undefined;
    const types = own.flatMap(([declarator, def]) => firstParamType(idx, declarator, def) ?? []);
    // A header's definition, or one whose first parameter is not read, may take anything.
    const read = !inHeaders && types.length === own.length;
    return { takes: read ? new Set(types) : undefined };
  });
}

/** The declared type of `name` in the function around `at` (a parameter or a local), if read. */
function declaredType(idx: FileIndex, fn: Node, name: string): string | undefined {
  for (const d of fn.descendantsOfType(["parameter_declaration", "declaration"])) {
    if (!d) continue;
    const type = d.childForFieldName("type");
    const named = d.childrenForFieldName("declarator").some((x) => {
      const target = x?.type === "init_declarator" ? x.childForFieldName("declarator") : x;
      return target?.type === "identifier" && idx.textOf(target) === name;
    });
    if (type && named) return idx.textOf(type);
  }
  return undefined;
}

/** The type of a call's argument where it can be read here, normalized; undefined otherwise. */
export function argumentType(idx: FileIndex, arg: Node): string | undefined {
  const e = unparen(arg);
  const text = idx.textOf(e);
  const operator = /\.\s*operator\s+([\w:]+)\s*\(\s*\)$/.exec(text);
  if (operator) return normalized(operator[1]!);
  if (e.type === "cast_expression") {
    const type = e.childForFieldName("type");
    return type ? normalized(idx.textOf(type)) : undefined;
  }
  const cast = /^(?:static|reinterpret)_cast\s*<([^<>]+)>/.exec(text);
  if (cast) return normalized(cast[1]!);
  if (e.type === "number_literal")
    return /[.eE]/.test(text) && !/^0[xX]/.test(text) ? (/[fF]$/.test(text) ? "float" : "double") : "int";
  if (e.type !== "identifier") return undefined;
  const fn = idx.enclosingFunction(e);
  const type = fn ? declaredType(idx, fn, text) : undefined;
  return type === undefined || type === "auto" ? undefined : normalized(type);
}

/** Whether the project's `fn` may take the call's first argument (every call when a type is not read). */
export function coversCall(idx: FileIndex, fn: ProjectFunction, call: Node): boolean {
  const first = callArguments(call)[0];
  const type = first ? argumentType(idx, first) : undefined;
  if (!fn.takes || type === undefined) return true;
  return [...fn.takes].some((t) => converts(type, t) !== false);
}

/** The types the project's `fn` takes, for a message: "`at::Half`" style, or undefined when not read. */
export function takenTypes(fn: ProjectFunction): string | undefined {
  if (!fn.takes) return undefined;
  return [...fn.takes].map((t) => `\`${t}\``).join(" or ");
}
