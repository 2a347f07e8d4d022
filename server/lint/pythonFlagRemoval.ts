// The flags a build script takes out of PyTorch's own nvcc flags before it builds. cpp_extension puts
// `COMMON_NVCC_FLAGS` (-D__CUDA_NO_HALF_OPERATORS__ and its three siblings) on every CUDA compile, and a
// project that wants __half's operators removes them from that list in place:
//   for flag in REMOVE_NVCC_FLAGS: torch_cpp_ext.COMMON_NVCC_FLAGS.remove(flag)
//   torch.utils.cpp_extension.COMMON_NVCC_FLAGS.remove("-D__CUDA_NO_HALF_OPERATORS__")
// Read: `.remove(ARG)` on a name that ends in COMMON_NVCC_FLAGS, in module-level code or in a function
// of the script that the script calls; ARG a string literal, or the variable of an enclosing
// `for V in X` where X is a list (or tuple) literal or a name assigned one, in the function or at
// module level.
// Cannot see: the list rebuilt another way (slice assignment, a comprehension), removals in helper
// modules, a call that only some branches make (a removal counts wherever it is called).
import type { PyToken } from "./buildSyntax";
import type { PyStatement } from "./pythonBlocks";

/** The string literals of `[ … ]` / `( … )` at `tokens[at]`, or undefined when it is not one. */
function literalList(tokens: readonly PyToken[], at: number): string[] | undefined {
  const open = tokens[at]?.text;
  if (open !== "[" && open !== "(") return undefined;
  const out: string[] = [];
  for (const t of tokens.slice(at + 1)) {
    if (t.text === "]" || t.text === ")") return out;
    if (t.kind === "string") out.push(t.text);
    else if (t.text !== ",") return undefined;
  }
  return undefined;
}

/** Lists a block assigns by name (`NAME = [ "…", … ]`). */
function assignedLists(stmts: readonly PyStatement[], into: Map<string, string[]>): Map<string, string[]> {
  for (const s of stmts) {
    const [name, eq] = s.tokens;
    if (s.head || name?.kind !== "name" || eq?.text !== "=") continue;
    const list = literalList(s.tokens, 2);
    if (list) into.set(name.text, list);
  }
  return into;
}

/** `X.COMMON_NVCC_FLAGS.remove(ARG)` in a statement: ARG's token, else undefined. */
function removeArgument(tokens: readonly PyToken[]): PyToken | undefined {
  for (let i = 0; i + 4 < tokens.length; i++) {
    const [a, dot, remove, open, arg] = tokens.slice(i, i + 5);
    if (a?.text !== "COMMON_NVCC_FLAGS" || dot?.text !== "." || remove?.text !== "remove") continue;
    if (open?.text === "(" && tokens[i + 5]?.text === ")") return arg;
  }
  return undefined;
}

/** The flags `stmts` (a whole script) remove from cpp_extension's COMMON_NVCC_FLAGS (see the top). */
export function removedNvccFlags(stmts: readonly PyStatement[]): string[] {
  const removed: string[] = [];
  const moduleLists = assignedLists(stmts, new Map());
  const functions = new Map(
    stmts.filter((s) => s.head === "def" && s.tokens[0]).map((s) => [s.tokens[0]!.text, s] as const),
  );
  const calledAtTop = (name: string): boolean =>
    stmts.some(
      (s) => s.head !== "def" && s.tokens.some((t, i) => t.text === name && s.tokens[i + 1]?.text === "("),
    );
  const walk = (
    block: readonly PyStatement[],
    lists: Map<string, string[]>,
    loops: Map<string, string[]>,
  ): void => {
    for (const s of block) {
      if (s.head === "def") continue;
      if (s.head === "for") {
        const [v, inKw] = s.tokens;
        const source = s.tokens[2];
        const values =
          source?.kind === "name" && s.tokens[3]?.text !== "("
            ? lists.get(source.text)
            : literalList(s.tokens, 2);
        const inner = new Map(loops);
        if (v?.kind === "name" && inKw?.text === "in" && values) inner.set(v.text, values);
        walk(s.body ?? [], lists, inner);
        continue;
      }
      if (s.head) {
        walk(s.body ?? [], lists, loops);
        continue;
      }
      const arg = removeArgument(s.tokens);
      if (arg?.kind === "string") removed.push(arg.text);
      else if (arg?.kind === "name") removed.push(...(loops.get(arg.text) ?? []));
    }
  };
  walk(stmts, moduleLists, new Map());
  for (const [name, def] of functions)
    if (calledAtTop(name))
      walk(def.body ?? [], assignedLists(def.body ?? [], new Map(moduleLists)), new Map());
  return [...new Set(removed)];
}
