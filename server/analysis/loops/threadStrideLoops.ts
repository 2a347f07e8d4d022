// Thread-strided loops: `for (int i = <start from threadIdx>; i < n; i += <stride the same for the block>)`,
// the block-stride and grid-stride loops in which consecutive threads take consecutive indexes. This is
// the shape of the bandwidth-bound loops of normalisation, activation and softmax kernels: each iteration
// of each thread moves one element, and the warp together moves 32 neighbours.
//
// Read with a tree-sitter query (the loop's four parts), the start and step checked from their text:
// the start names `threadIdx.x` (or a lane/thread id assigned from it) and the step adds a value that
// does not (blockDim.x, a block-size constant, gridDim.x * blockDim.x). Cannot see: `while` loops, loops
// whose variable is declared before them, strides through a variable assigned from threadIdx, and loops
// a macro generates (`CUDA_KERNEL_LOOP`).
import { Query, type Node } from "web-tree-sitter";

/** A thread-strided loop and its variable. */
export interface StrideLoop {
  loop: Node;
  body: Node;
  variable: string;
  /** What the variable is compared with (`n` in `i < n`), when the condition is that simple. */
  bound?: Node;
  /** What each step adds (`blockDim.x`, `gridDim.x * blockDim.x`). */
  stride: Node;
}

const SOURCE = `
(for_statement
  initializer: (declaration declarator: (init_declarator declarator: (identifier) @var value: (_) @start))
  condition: (_) @condition
  update: (assignment_expression left: (identifier) @stepped operator: "+=" right: (_) @stride)
  body: (_) @body) @loop
`;

const queries = new WeakMap<object, Query>();

function query(node: Node): Query {
  const language = node.tree.language;
  let q = queries.get(language);
  if (!q) queries.set(language, (q = new Query(language, SOURCE)));
  return q;
}

/** Does the text name the x thread index (`threadIdx.x`, or `tid`-style names given as thread ids)? */
const THREAD_X = /\bthreadIdx\.x\b/;

/**
 * The thread-strided loops under `root`, given the names that hold the thread index (`tid` assigned
 * `threadIdx.x` earlier in the function).
 */
export function threadStrideLoops(root: Node, threadNames: ReadonlySet<string>): StrideLoop[] {
  const out: StrideLoop[] = [];
  const names = (text: string): boolean =>
    THREAD_X.test(text) || [...threadNames].some((n) => new RegExp(`\\b${n}\\b`).test(text));
  for (const m of query(root).matches(root)) {
    const get = (name: string): Node | undefined => m.captures.find((c) => c.name === name)?.node;
    const [variable, start, stepped, stride, body, loop] = [
      "var",
      "start",
      "stepped",
      "stride",
      "body",
      "loop",
    ].map(get);
    if (!variable || !start || !stepped || !stride || !body || !loop) continue;
    if (stepped.text !== variable.text) continue;
    // Consecutive threads, consecutive indexes: the start names the thread index, the stride does not.
    if (!names(start.text) || names(stride.text) || new RegExp(`\\b${variable.text}\\b`).test(stride.text))
      continue;
    const condition = get("condition");
    const bound =
      condition?.type === "binary_expression" && condition.childForFieldName("left")?.text === variable.text
        ? (condition.childForFieldName("right") ?? undefined)
        : undefined;
    out.push({ loop, body, variable: variable.text, bound, stride });
  }
  return out;
}

/** Names a function assigns the x thread index to (`const int tid = threadIdx.x;`), read from its text. */
export function threadIndexNames(functionText: string): Set<string> {
  const out = new Set<string>();
  for (const m of functionText.matchAll(/\b([A-Za-z_]\w*)\s*=\s*(?:\([^()]*\)\s*)?threadIdx\.x\s*[;,)]/g))
    out.add(m[1]!);
  return out;
}
