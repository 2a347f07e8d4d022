// The include directories a Python build script gives its sources: `include_dirs=[…]` of its
// CUDAExtension/CppExtension/Extension calls, `extra_include_paths=[…]` of cpp_extension.load, and `-I`
// flags in its strings (`"-Icsrc"`, `"-I" + inc`, f"-I{here}/csrc"). A path is read from the expression
// that builds it: string literals, `os.path.join`, `Path(…) / "…"`, `os.path.dirname`/`.parent`,
// `__file__`, `os.getcwd()` (taken as the script's folder, where builds run), f-strings, and module-level
// names assigned one of these (followed four deep); a list given by name is read from its module-level
// assignments, `+=`, `.append` and `.extend`. Not seen: values computed at run time (environment
// variables, a function's result), lists built inside functions, comprehensions.
import { dirname, join, resolve } from "node:path";
import type { PyToken } from "./buildSyntax";
import type { PyStatement } from "./pythonBlocks";
import { callArgs, callsOf, type CallArg } from "./pythonExprs";

/** What a path expression is read in: the script's path and its module-level statements. */
interface PathEnv {
  file: string;
  stmts: readonly PyStatement[];
  depth: number;
}

/** Functions whose value is their one argument's, as a path. */
const SAME_PATH = /^(?:Path|PurePath|PosixPath|str|abspath|realpath|normpath|fspath)$/;
/** Methods of a path whose value is the path's. */
const SAME_SELF = /^(?:resolve|absolute)$/;

/** The module-level `name = …` statements' value tokens, last first. */
function assignments(stmts: readonly PyStatement[], name: string): PyToken[][] {
  return stmts
    .filter(
      (s) => !s.head && s.tokens[0]?.text === name && s.tokens[1]?.text === "=" && s.tokens[2]?.text !== "=",
    )
    .map((s) => s.tokens.slice(2))
    .reverse();
}

/**
 * A name's value: `__file__`, or a module-level assignment of a path; null for a name the script never
 * assigns (a module: `os`, `pathlib`), undefined for one whose value cannot be read.
 */
function nameValue(name: string, env: PathEnv): string | null | undefined {
  if (name === "__file__") return env.file;
  const value = assignments(env.stmts, name)[0];
  if (!value) return null;
  return env.depth >= 4 ? undefined : pathValue(value, { ...env, depth: env.depth + 1 });
}

/** An f-string's value, each `{name}` replaced by the name's path value. */
function formatted(text: string, env: PathEnv): string | undefined {
  let unknown = false;
  const out = text.replace(/\{([^{}]*)\}/g, (_, inner: string) => {
    const v = /^\s*[A-Za-z_]\w*\s*$/.test(inner) ? nameValue(inner.trim(), env) : undefined;
    if (typeof v !== "string") unknown = true;
    return v ?? "";
  });
  return unknown ? undefined : out;
}

/**
 * A call's value from its callee's last name, its receiver (a path value; null for a module or a bare
 * function: `os.path.join`, `join`) and its arguments.
 */
function callValue(
  fn: string,
  self: string | null | undefined,
  args: readonly CallArg[],
  env: PathEnv,
): string | undefined {
  if (self === undefined) return undefined;
  const values = args.map((a) => (a.keyword ? undefined : pathValue(a.tokens, env)));
  if (values.some((v) => v === undefined)) return undefined;
  const vs = values as string[];
  if (self !== null) {
    if (fn === "joinpath") return join(self, ...vs);
    return SAME_SELF.test(fn) && vs.length === 0 ? self : undefined;
  }
  if (/^(?:getcwd|cwd)$/.test(fn) && vs.length === 0) return dirname(env.file);
  if (fn === "join" && vs.length > 0) return join(...vs);
  if (fn === "dirname" && vs.length === 1) return dirname(vs[0]!);
  if (SAME_PATH.test(fn) && vs.length === 1) return vs[0];
  return undefined;
}

/**
 * Reads one term from `tokens[at]`: an atom (a string, a name, a parenthesized expression) and its
 * `.name` and `(…)` trailers. Returns its value (undefined: not read) and the index after it.
 */
function term(tokens: readonly PyToken[], at: number, env: PathEnv): [string | undefined, number] {
  const t = tokens[at];
  if (!t) return [undefined, at];
  // `value`: what the trailers so far give (null: a module, or nothing yet); `pending`: a name read but
  // not yet known to be called or an attribute.
  let value: string | null | undefined = null;
  let pending: { name: string; dotted: boolean } | undefined;
  let i = at + 1;
  if (t.kind === "string") value = t.formatted ? formatted(t.text, env) : t.text;
  else if (t.kind === "name") pending = { name: t.text, dotted: false };
  else if (t.text === "(") {
    const inner = callArgs(tokens, at);
    value = inner.length === 1 ? pathValue(inner[0]!.tokens, env) : undefined;
    i = closing(tokens, at) + 1;
  } else return [undefined, at + 1];
  /** A pending name not called: a variable, or an attribute of the value (`.parent`). */
  const settle = (): void => {
    if (!pending) return;
    if (!pending.dotted) value = nameValue(pending.name, env);
    else if (pending.name === "parent" && typeof value === "string") value = dirname(value);
    else value = value === null ? null : undefined;
    pending = undefined;
  };
  for (;;) {
    const next = tokens[i];
    if (next?.text === "." && tokens[i + 1]?.kind === "name") {
      settle();
      pending = { name: tokens[i + 1]!.text, dotted: true };
      i += 2;
    } else if (next?.text === "(" && pending) {
      value = callValue(pending.name, value, callArgs(tokens, i), env);
      pending = undefined;
      i = closing(tokens, i) + 1;
    } else break;
  }
  settle();
  return [value ?? undefined, i];
}

/** The index of the bracket closing the one at `open`. */
function closing(tokens: readonly PyToken[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    const t = tokens[i]!.text;
    if (t === "(" || t === "[" || t === "{") depth++;
    else if ((t === ")" || t === "]" || t === "}") && --depth === 0) return i;
  }
  return tokens.length;
}

/** A path expression's value (absolute, or relative to the script's folder), if it can be read. */
function pathValue(tokens: readonly PyToken[], env: PathEnv): string | undefined {
  let [value, i] = term(tokens, 0, env);
  while (value !== undefined && i < tokens.length) {
    const op = tokens[i]!.text;
    if (op !== "/" && op !== "+") return undefined;
    const [rhs, next] = term(tokens, i + 1, env);
    if (rhs === undefined) return undefined;
    value = op === "/" ? join(value, rhs) : value + rhs;
    i = next;
  }
  return i >= tokens.length ? value : undefined;
}

/** The elements of a list expression (`[a, b]`, or a name's module-level list). */
function listElements(tokens: readonly PyToken[], env: PathEnv): PyToken[][] {
  if (tokens[0]?.text === "[" && closing(tokens, 0) === tokens.length - 1)
    return callArgs(tokens, 0).map((a) => a.tokens);
  if (tokens.length !== 1 || tokens[0]!.kind !== "name") return [];
  const name = tokens[0]!.text;
  const out: PyToken[][] = [];
  for (const s of env.stmts) {
    const t = s.tokens;
    if (s.head || t[0]?.text !== name) continue;
    if (t[1]?.text === "=" && t[2]?.text === "[") out.push(...listElements(t.slice(2), env));
    else if (t[1]?.text === "+" && t[2]?.text === "=") out.push(...listElements(t.slice(3), env));
    else if (t[1]?.text === "." && /^(?:append|extend)$/.test(t[2]?.text ?? "") && t[3]?.text === "(") {
      const args = callArgs(t, 3).map((a) => a.tokens);
      out.push(...(t[2]!.text === "append" ? args : args.flatMap((a) => listElements(a, env))));
    }
  }
  return out;
}

const flatten = (stmts: readonly PyStatement[]): PyToken[] =>
  stmts.flatMap((s) => [...s.tokens, ...flatten(s.body ?? [])]);

/**
 * The include directories a script gives: the `keyword` lists of its calls of `callees`, and its `-I`
 * flags; absolute, resolved against the script's folder.
 */
export function pythonIncludeDirs(
  file: string,
  stmts: readonly PyStatement[],
  callees: RegExp,
  keyword: string,
): string[] {
  const env: PathEnv = { file, stmts, depth: 0 };
  const tokens = flatten(stmts);
  const paths: (string | undefined)[] = [];
  for (const call of callsOf(tokens, callees))
    for (const a of call.args.filter((x) => x.keyword === keyword))
      paths.push(...listElements(a.tokens, env).map((e) => pathValue(e, env)));
  tokens.forEach((t, i) => {
    if (t.kind !== "string" || !t.text.startsWith("-I")) return;
    // The flag's expression: this string and what `+` adds to it, up to the end of the list element.
    let end = i + 1;
    while (tokens[end]?.text === "+") end = term(tokens, end + 1, env)[1];
    const v = pathValue(tokens.slice(i, end), env);
    paths.push(v?.startsWith("-I") ? v.slice(2).trim() : undefined);
  });
  const dir = dirname(file);
  const out = paths.filter((p): p is string => p !== undefined && p !== "").map((p) => resolve(dir, p));
  return [...new Set(out)];
}
