// Finding nodes fast. Walking a whole web-tree-sitter tree from JS costs ~30 ms per 5,000 lines, so
// rules look for their tokens in the text with a regex and ask the tree only at those offsets
// (descendantForIndex, ~2 µs). One index per lint run, shared by its rules.
//
// A run may cover a window of the file (the top-level definitions an edit touched: server/lint/
// incremental.ts): `scan` then only finds candidates inside it, while `scanAll` still reads the whole
// text for what the window's findings depend on elsewhere (constants, guards). What the run looked up
// is kept in `facts`, so the next windowed run can tell whether findings outside its window still hold.
import type { Node, Tree } from "web-tree-sitter";
import type { LintContext } from "../../rules/rule";
import type { BindingSite } from "../constants/constSites";
import { DependencyRecorder, type Dependency } from "../../lint/dependencies";
import type { HalfName } from "../types/halfText";
import type { HalfEntry } from "../types/halfTypes";
import { findLaunches, type Launch } from "../launches/launches";
import { textIn } from "./nodes";
import { findDirectives, wordOffsets, type Directive } from "./textScans";

/** A function definition and its [start, end) offsets. */
export interface FunctionSpan {
  node: Node;
  start: number;
  end: number;
}

export interface FunctionInfo extends FunctionSpan {
  body: Node;
  space: "global" | "device";
}

/** [start, end) offsets of the text a run lints. */
export interface LintWindow {
  start: number;
  end: number;
}

/** A file-scope FP16/BF16 declaration and where its type name is. */
export interface PlacedHalfEntry {
  offset: number;
  entry: HalfEntry;
}

/** What one run learned about the file that decides whether findings outside a later window still hold. */
export interface FileFacts {
  /** Names whose constant bindings a rule looked up (their definitions may lie anywhere in the file). */
  constantNames: Set<string>;
  /** Per name looked up in this run, every place that may bind it and what binds it there. */
  constantSites: Map<string, BindingSite[]>;
  /** The file-scope FP16/BF16 declarations (they type names in every function). */
  fileHalfEntries: PlacedHalfEntry[];
  /** Every half type name and what reading it looked at (the relint checks those next to its window). */
  halfNames: HalfName[];
  /** A finding depended on text beyond its own definition (a launch or index outside any function). */
  fileWide: boolean;
}

/** Given to a windowed run: what earlier runs found outside the window, in this text's offsets. */
export interface Carried {
  fileHalfEntries: PlacedHalfEntry[];
  halfNames: HalfName[];
}

const cache = new WeakMap<Tree, FileIndex>();

const LOOP_TYPES: ReadonlySet<string> = new Set([
  "for_statement",
  "while_statement",
  "do_statement",
  "for_range_loop",
]);

const FUNCTION: ReadonlySet<string> = new Set(["function_definition"]);

/** A loop's keyword (loops: its length is known from its last letter, r for, e while, o do). */
const LOOP_KEYWORD = /\b(?:for|while|do)\b/g;

/** Nodes that can hold function definitions at or near file level. */
const CONTAINERS: ReadonlySet<string> = new Set([
  "template_declaration",
  "namespace_definition",
  "declaration_list",
  "linkage_specification",
  "preproc_if",
  "preproc_ifdef",
  "preproc_else",
  "preproc_elif",
  "class_specifier",
  "struct_specifier",
  "field_declaration_list",
  "declaration",
]);

export class FileIndex {
  readonly root: Node;
  private deviceFns: FunctionInfo[] | undefined;
  /** Per-file values shared by the rules of one run (launches, constants, half declarations). */
  private readonly memo = new Map<string, unknown>();

  /** Which whole-file facts each rule of the run read (see dependencies.ts). */
  readonly deps = new DependencyRecorder();

  shared<T>(key: string, make: () => T): T {
    return this.deps.shared(key, this.memo, make);
  }

  /** Takes over the shared values `keys` that `other`, an index over the same tree and text, has made. */
  takeOver(other: FileIndex, keys: readonly string[]): void {
    for (const k of keys) if (other.memo.has(k)) this.memo.set(k, other.memo.get(k));
  }

  /** The running rule's findings depend on `fact` (a whole-file fact: see dependencies.ts). */
  reads(fact: Dependency): void {
    this.deps.reads(fact);
  }

  /** A finding depended on text beyond its own definition (a launch or index outside any function). */
  readsWholeFile(): void {
    this.facts.fileWide = true;
    this.reads("fileWide");
  }

  readonly window: LintWindow;
  readonly facts: FileFacts = {
    constantNames: new Set(),
    constantSites: new Map(),
    fileHalfEntries: [],
    halfNames: [],
    fileWide: false,
  };

  private constructor(
    readonly tree: Tree,
    readonly text: string,
    window: LintWindow | undefined,
    readonly carried: Carried | undefined,
  ) {
    this.root = tree.rootNode;
    this.window = window ?? { start: 0, end: text.length };
  }

  /** The index of the current run over this tree (a whole-file one when the engine made none). */
  static of(ctx: Pick<LintContext, "tree" | "text">): FileIndex {
    const hit = cache.get(ctx.tree);
    if (hit && hit.text === ctx.text) return hit;
    return FileIndex.begin(ctx.tree, ctx.text);
  }

  /** Starts a run: a fresh index for `tree`, over `window` when given (then with what was `carried`). */
  static begin(tree: Tree, text: string, window?: LintWindow, carried?: Carried): FileIndex {
    const idx = new FileIndex(tree, text, window, carried);
    cache.set(tree, idx);
    return idx;
  }

  /** A node's text, from the file's text (nodes.ts textIn). */
  textOf(n: Node): string {
    return textIn(this.text, n);
  }

  nodeAt(start: number, end: number): Node {
    return this.root.descendantForIndex(start, end) ?? this.root;
  }

  /**
   * The node of one of `types` that the keyword token at [start, end) belongs to (`__global__` →
   * function_definition, `<<<` → kernel_call_syntax, `for` → for_statement), found in one call: the
   * smallest named node around the token. Asking for the token and then its parent costs two, and
   * Node.parent walks down from the root. Undefined where that node is of another type (the callers then
   * ask the old way: the token may be a comment, or a named node of its own).
   */
  ownerOf(start: number, end: number, types: ReadonlySet<string>): Node | undefined {
    const n = this.root.namedDescendantForIndex(start, end);
    return n && types.has(n.type) ? n : undefined;
  }

  /** Every match of a global regex in [from, to), within the run's window. */
  scan(re: RegExp, from = 0, to = this.text.length): Generator<RegExpExecArray> {
    return this.scanAll(re, Math.max(from, this.window.start), Math.min(to, this.window.end));
  }

  /** Every match of a global regex in [from, to), inside the window or not. */
  *scanAll(re: RegExp, from = 0, to = this.text.length): Generator<RegExpExecArray> {
    const r = new RegExp(re.source, re.flags.includes("g") ? re.flags : re.flags + "g");
    r.lastIndex = from;
    for (let m = r.exec(this.text); m && m.index < to; m = r.exec(this.text)) {
      if (m[0].length === 0) r.lastIndex++;
      yield m;
    }
  }

  /**
   * Nodes of the given types whose text is exactly a match of `re` (group 1 when the regex has one), in
   * [from, to): a name in a comment or string is not returned.
   */
  tokens(re: RegExp, types: ReadonlySet<string>, from = 0, to = this.text.length): Node[] {
    const out: Node[] = [];
    for (const m of this.scan(re, from, to)) {
      const word = m[1] ?? m[0];
      const start = m.index + m[0].indexOf(word);
      const n = this.nodeAt(start, start + word.length);
      // startIndex is a field; type and endIndex each cross into wasm: the cheap test first.
      if (n.startIndex === start && types.has(n.type) && n.endIndex === start + word.length) out.push(n);
    }
    return out;
  }

  /** Kernels and __device__ functions with bodies, in document order. */
  deviceFunctions(): FunctionInfo[] {
    if (this.deviceFns) return this.deviceFns;
    const byId = new Map<number, FunctionInfo>();
    // Every `__global__` and `__device__` in the window, in document order: the two lists merged.
    const globals = this.words("__global__");
    const devices = this.words("__device__");
    for (let i = 0, j = 0; i < globals.length || j < devices.length;) {
      const global = j === devices.length || (i < globals.length && globals[i]! < devices[j]!);
      const at = global ? globals[i++]! : devices[j++]!;
      const end = at + 10; // both words have 10 characters
      // ownerOf has read the type of what it gives: only the fallback's parent is asked for its own.
      const fn = this.ownerOf(at, end, FUNCTION) ?? functionParent(this.nodeAt(at, end));
      if (!fn) continue;
      const known = byId.get(fn.id);
      if (known) {
        if (global) known.space = "global";
        continue;
      }
      const body = fn.childForFieldName("body");
      if (!body) continue;
      byId.set(fn.id, {
        node: fn,
        body,
        space: global ? "global" : "device",
        start: fn.startIndex,
        end: fn.endIndex,
      });
    }
    const out = [...byId.values()].sort((a, b) => a.start - b.start);
    this.deviceFns = out;
    return out;
  }

  private readonly wordLists = new Map<string, number[]>();

  /**
   * The offsets of the whole word `word` (an identifier such as `__shared__`) in the run's window, in
   * order, found once per run and shared by the rules: by indexOf, as a regex scan makes a match array
   * (and a generator step) per match.
   */
  words(word: string): readonly number[] {
    let list = this.wordLists.get(word);
    if (!list) {
      list = wordOffsets(this.text, word, this.window.start, this.window.end);
      this.wordLists.set(word, list);
    }
    return list;
  }

  /** `words(word)` in [from, to), which may lie outside the window (then searched there, not kept). */
  wordsIn(word: string, from: number, to: number): readonly number[] {
    const { start, end } = this.window;
    if (from < start || to > end) return wordOffsets(this.text, word, from, to);
    const list = this.words(word);
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]! < from) lo = mid + 1;
      else hi = mid;
    }
    let stop = lo;
    while (stop < list.length && list[stop]! < to) stop++;
    return list.slice(lo, stop);
  }

  /**
   * The innermost function definition containing `offset`, found top-down through the file's top-level
   * structure (templates, namespaces, `extern "C"`, preprocessor blocks, classes): Node.parent costs
   * grow with the number of top-level items, so walking up from many nodes is avoided. Callers ask in
   * document order, mostly inside one function after another: the last answer is tried first.
   */
  functionAt(offset: number): Node | undefined {
    return this.functionSpanAt(offset)?.node;
  }

  /** functionAt's function with its start and end (read once: each read of endIndex crosses into wasm). */
  functionSpanAt(offset: number): FunctionSpan | undefined {
    const last = this.lastFunction;
    if (last && offset >= last.start && offset < last.end) return last;
    let node: Node = this.root;
    for (let depth = 0; depth < 12; depth++) {
      const next = this.childAt(node, offset);
      if (!next) return undefined;
      const type = next.type;
      if (type === "function_definition") {
        this.lastFunction = { node: next, start: next.startIndex, end: next.endIndex };
        return this.lastFunction;
      }
      if (!CONTAINERS.has(type)) return undefined;
      node = next;
    }
    return undefined;
  }

  private lastFunction: FunctionSpan | undefined;

  /**
   * The named child of `n` containing `offset`. tree-sitter's own search (the first child ending after
   * `offset`) reads one node; listing the children first would read every top-level item.
   */
  private childAt(n: Node, offset: number): Node | undefined {
    const k = n.firstNamedChildForIndex(offset);
    return k && k.startIndex <= offset ? k : undefined;
  }

  /**
   * Preprocessor lines of the whole file, in one pass shared by the rules: a `#` with only spaces and
   * tabs before it on its line, and the word after it (`if`, `include`...).
   */
  directives(): readonly Directive[] {
    return this.shared("directives", () => findDirectives(this.text, 0, this.text.length));
  }

  /** The preprocessor lines starting in the run's window (read there only, unless the whole file's are known). */
  windowDirectives(): readonly Directive[] {
    const { start, end } = this.window;
    if (start === 0 && end === this.text.length) return this.directives();
    return this.shared("windowDirectives", () => findDirectives(this.text, start, end));
  }

  /** Loop statements in [from, to), from their keywords, in document order. */
  loops(from: number, to: number): Node[] {
    const out: Node[] = [];
    // test, not exec (no match array per keyword): a match is a whole word, starting where the word
    // ending at lastIndex starts.
    const re = LOOP_KEYWORD;
    const start = Math.max(from, this.window.start);
    const stop = Math.min(to, this.window.end);
    re.lastIndex = start;
    while (re.test(this.text)) {
      const end = re.lastIndex;
      const at =
        end - (this.text.charCodeAt(end - 1) === 0x72 ? 3 : this.text.charCodeAt(end - 1) === 0x65 ? 5 : 2);
      if (at >= stop) break;
      const owner = this.ownerOf(at, end, LOOP_TYPES);
      if (owner?.startIndex === at) {
        out.push(owner); // its first token, at the match, is the keyword
        continue;
      }
      const kw = this.nodeAt(at, end);
      const loop = kw.parent;
      if (loop && kw.type === this.text.slice(at, end) && LOOP_TYPES.has(loop.type) && loop.startIndex === at)
        out.push(loop);
    }
    return out;
  }

  /**
   * The nearest enclosing function definition. Node.parent searches down from the root, past every
   * top-level item before the node's: walking up costs ~5 µs a launch in a 5,000-line file. Instead the
   * path is walked down from a function around it: a listed device function, or the outermost function,
   * found top-down (functionAt).
   */
  enclosingFunction(node: Node): Node | undefined {
    const start = node.startIndex;
    const end = node.endIndex;
    // A device function already listed holding the node is around it too, found without a search.
    const dev = this.deviceFns && this.deviceFunctionAt(start);
    const outer = dev && end <= dev.end ? dev : this.functionSpanAt(start);
    // Only inside a function: a node with the function's own range may be around it rather than in it.
    if (!outer || (start === outer.start && end === outer.end) || end > outer.end) {
      for (let p = node.parent; p; p = p.parent) if (p.type === "function_definition") return p;
      return undefined;
    }
    let inner = outer.node;
    for (let at: Node | null = inner.childWithDescendant(node); at && at.id !== node.id;) {
      if (at.type === "function_definition") inner = at;
      at = at.childWithDescendant(node);
    }
    return inner;
  }

  /** The largest end among the device functions up to each one (broken code can nest definitions). */
  private endsSoFar: number[] | undefined;

  /** The innermost device function holding `offset`, if `offset` is in its body. */
  deviceFunctionAt(offset: number): FunctionInfo | undefined {
    const fns = this.deviceFunctions();
    if (!this.endsSoFar) {
      let max = 0;
      this.endsSoFar = fns.map((f) => (max = Math.max(max, f.end)));
    }
    // The last function starting at or before offset, then back while an earlier one may still hold it.
    let lo = 0;
    let hi = fns.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (fns[mid]!.start <= offset) lo = mid + 1;
      else hi = mid - 1;
    }
    for (let i = hi; i >= 0 && this.endsSoFar[i]! > offset; i--) {
      const f = fns[i]!;
      if (offset < f.end) return offset >= f.body.startIndex && offset < f.body.endIndex ? f : undefined;
    }
    return undefined;
  }
}

/** The parent of `n` where it is a function definition. */
function functionParent(n: Node): Node | undefined {
  const p = n.parent;
  return p?.type === "function_definition" ? p : undefined;
}

const QUALIFIER: ReadonlySet<string> = new Set(["type_qualifier"]);

/** The type qualifier a `__shared__` token at [start, end) is (or is in), if any. */
export function sharedQualifier(idx: FileIndex, start: number, end: number): Node | undefined {
  const q = idx.ownerOf(start, end, QUALIFIER);
  if (q) return q;
  const tok = idx.nodeAt(start, end);
  if (tok.type === "type_qualifier") return tok;
  return tok.parent?.type === "type_qualifier" ? tok.parent : undefined;
}

/** Every kernel launch: the call and its <<<grid, block, smem, stream>>> arguments. */
export function kernelLaunches(idx: FileIndex): Launch[] {
  return idx.shared("launches", () => findLaunches(idx));
}
