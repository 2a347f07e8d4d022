// Dispatch macros: the type names a macro call binds inside its arguments.
// `AT_DISPATCH_FLOATING_TYPES_AND2(at::ScalarType::Half, at::ScalarType::BFloat16, t, "op", [&] { … })`
// runs its lambda once per type with `scalar_t` naming each (float, double, at::Half, at::BFloat16); a
// project's macro binds what its body says (`using scalar_t = __half;`, or the `AT_DISPATCH_CASE`s of
// vLLM's VLLM_DISPATCH_FLOATING_TYPES), read through the macros its body calls. PyTorch's own macros are
// known by name; a project macro from an `<…>` header is not seen (its calls bind nothing).
import type { FileIndex } from "../source/fileIndex";
import { codeOnly } from "../source/codeText";
import type { DeclEnv } from "./declEnv";

/** One dispatch macro call: its name, its parentheses [open, close], and the names it binds to types. */
export interface DispatchCall {
  name: string;
  open: number;
  close: number;
  bound: ReadonlyMap<string, readonly string[]>;
}

/** The enum spellings of the 16-bit and float types in macro arguments and bodies. */
const SCALAR_TYPE = /\b(?:ScalarType::|k)(Half|Float16|BFloat16|Float|Double)\b/g;
const SCALAR_NAME: Readonly<Record<string, string>> = {
  Half: "at::Half",
  Float16: "at::Half",
  BFloat16: "at::BFloat16",
  Float: "float",
  Double: "double",
};
const BIND = /\busing\s+([A-Za-z_]\w*)\s*=\s*((?:[A-Za-z_]\w*::)*[A-Za-z_]\w*)\s*;/g;
const CALLED = /\b([A-Za-z_]\w*)\s*\(/g;

/** The types PyTorch's AT_DISPATCH_* macros bind `scalar_t` to by their name alone. */
function pytorchTypes(name: string): string[] {
  const out: string[] = [];
  if (name.includes("REDUCED_FLOATING")) out.push("at::Half", "at::BFloat16");
  else if (name.includes("FLOATING")) out.push("float", "double");
  if (name.includes("ALL_TYPES"))
    out.push("uint8_t", "int8_t", "int16_t", "int", "int64_t", "float", "double");
  if (name.includes("AND_HALF")) out.push("at::Half");
  return out;
}

/** The enum types named in `text`. */
function mentionedTypes(text: string): string[] {
  return [...text.matchAll(SCALAR_TYPE)].map((m) => SCALAR_NAME[m[1]!]!);
}

type Bindings = Map<string, Set<string>>;

function bind(into: Bindings, name: string, types: Iterable<string>): void {
  const set = into.get(name) ?? new Set<string>();
  for (const t of types) set.add(t);
  into.set(name, set);
}

/** What a call of macro `name` binds, besides what its arguments add; `pytorch`: it dispatches through AT_DISPATCH. */
function macroBindings(
  name: string,
  defines: ReadonlyMap<string, string>,
  depth = 0,
): { bound: Bindings; pytorch: boolean } {
  const bound: Bindings = new Map();
  let pytorch = name.startsWith("AT_DISPATCH_");
  if (pytorch) bind(bound, "scalar_t", pytorchTypes(name));
  const body = depth < 4 ? defines.get(name) : undefined;
  if (!body) return { bound, pytorch };
  for (const m of body.matchAll(BIND)) bind(bound, m[1]!, [m[2]!]);
  for (const m of body.matchAll(CALLED)) {
    const callee = m[1]!;
    if (callee === name || !(callee.startsWith("AT_DISPATCH_") || defines.has(callee))) continue;
    const inner = macroBindings(callee, defines, depth + 1);
    pytorch ||= inner.pytorch;
    for (const [n, types] of inner.bound) bind(bound, n, types);
  }
  if (pytorch) bind(bound, "scalar_t", mentionedTypes(body));
  return { bound, pytorch };
}

/** Per environment: the macros that bind anything, with what they bind. */
const macroTables = new WeakMap<DeclEnv, Map<string, { bound: Bindings; pytorch: boolean }>>();

function bindingMacros(env: DeclEnv): Map<string, { bound: Bindings; pytorch: boolean }> {
  let table = macroTables.get(env);
  if (!table) {
    table = new Map();
    for (const name of env.defines.keys()) {
      const b = macroBindings(name, env.defines);
      if (b.bound.size > 0 || b.pytorch) table.set(name, b);
    }
    macroTables.set(env, table);
  }
  return table;
}

/** The offset of the `)` closing the `(` at `open` in `code` (its end when unclosed). */
export function closingParen(code: string, open: number): number {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    const c = code.charCodeAt(i);
    if (c === 40) depth++;
    else if (c === 41 && --depth === 0) return i;
  }
  return code.length;
}

/** The arguments before a lambda's `[` (where AT_DISPATCH_*_AND2 names its extra types). */
function leadingArgs(code: string, open: number, close: number): string {
  const lambda = code.indexOf("[", open);
  return code.slice(open, lambda >= 0 && lambda < close ? lambda : close);
}

/** Every dispatch macro call of the file, in document order. */
export function dispatchCalls(idx: FileIndex, env: DeclEnv): DispatchCall[] {
  return idx.shared("dispatchCalls", () => {
    const code = codeOnly(idx.text);
    const table = bindingMacros(env);
    const out: DispatchCall[] = [];
    for (const m of code.matchAll(CALLED)) {
      const name = m[1]!;
      const known =
        table.get(name) ?? (name.startsWith("AT_DISPATCH_") ? macroBindings(name, env.defines) : undefined);
      if (!known) continue;
      const open = m.index + m[0].length - 1;
      const close = closingParen(code, open);
      const bound: Bindings = new Map([...known.bound].map(([n, t]) => [n, new Set(t)]));
      if (known.pytorch) bind(bound, "scalar_t", mentionedTypes(leadingArgs(code, open, close)));
      const frozen = new Map([...bound].map(([n, t]) => [n, [...t]] as const));
      if (frozen.size > 0) out.push({ name, open, close, bound: frozen });
    }
    return out;
  });
}

/** The innermost dispatch call around `at` that binds `name`, and the types it binds it to. */
export function boundAt(
  calls: readonly DispatchCall[],
  name: string,
  at: number,
): { call: DispatchCall; types: readonly string[] } | undefined {
  let found: { call: DispatchCall; types: readonly string[] } | undefined;
  for (const call of calls) {
    if (call.open > at) break;
    const types = call.bound.get(name);
    if (types && at < call.close) found = { call, types };
  }
  return found;
}
