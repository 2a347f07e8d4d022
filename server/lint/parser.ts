// Loads web-tree-sitter and the tree-sitter-cuda grammar once per process, and parses with a time bound;
// a reparse of an edited tree gives the tree a fresh parse of the text would (recoverAsFresh).
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { Edit, Language, Parser, type Node, type Point, type Tree } from "web-tree-sitter";

const GRAMMAR = "tree-sitter-cuda.wasm";
const RUNTIME = "web-tree-sitter.wasm";

/** A fresh parse of 220 KB takes ~70 ms; anything far beyond this is pathological input. */
export const DEFAULT_PARSE_TIMEOUT_MS = 1500;

/**
 * Where the two wasm files are: `wasm/` next to the bundle (dist/server.js, dist/cli.js), else the
 * packages in the nearest node_modules (tests and tsx runs from the source tree).
 */
export function wasmPaths(): { runtime: string; grammar: string } {
  const bundled = join(__dirname, "wasm");
  if (existsSync(join(bundled, GRAMMAR)))
    return { runtime: join(bundled, RUNTIME), grammar: join(bundled, GRAMMAR) };
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const modules = join(dir, "node_modules");
    const grammar = join(modules, "tree-sitter-cuda", GRAMMAR);
    if (existsSync(grammar)) return { runtime: join(modules, "web-tree-sitter", RUNTIME), grammar };
    if (dirname(dir) === dir) break;
  }
  throw new Error(`cannot find ${GRAMMAR}: looked in ${bundled} and in node_modules above ${__dirname}`);
}

/** One parser per process; web-tree-sitter's parse is synchronous, so sharing it is safe. */
export class CudaParser {
  private constructor(
    private readonly parser: Parser,
    readonly language: Language,
  ) {}

  static async load(): Promise<CudaParser> {
    const paths = wasmPaths();
    await Parser.init({ locateFile: (name: string) => (name === RUNTIME ? paths.runtime : name) });
    const language = await Language.load(paths.grammar);
    const parser = new Parser();
    parser.setLanguage(language);
    return new CudaParser(parser, language);
  }

  /**
   * Parses `text`, reusing `oldTree` (already `edit`ed to match `text`) when given, into the tree a fresh
   * parse of `text` gives (see recoverAsFresh). Returns undefined when parsing ran past `timeoutMs`: the
   * caller reports that instead of linting. `oldTree` may be edited further here.
   */
  parse(text: string, oldTree?: Tree | null, timeoutMs = DEFAULT_PARSE_TIMEOUT_MS): Tree | undefined {
    const deadline = performance.now() + timeoutMs;
    const input = blankUnknownAttributes(text);
    if (!oldTree) return this.parseOnce(input, null, deadline);
    return this.recoverAsFresh(input, oldTree, deadline);
  }

  /**
   * Tree-sitter's error recovery depends on the subtrees an incremental parse reuses: after an edit that
   * breaks the syntax, the reparse can read the broken code otherwise than a fresh parse of the same
   * text (a block kept as a block where a fresh parse reads it into an error), and the lints with it.
   * So no top-level item that holds a syntax error is reused: those of the old tree are marked as edited
   * before the reparse, those of the new tree that were not are marked and parsed again, until every
   * item with an error was parsed without reuse. Items without one are reused as before (an error-free
   * parse does not depend on reuse). Typing in a file without errors costs one reparse, as before.
   */
  private recoverAsFresh(input: string, oldTree: Tree, deadline: number): Tree | undefined {
    // The items marked in the old tree: parsed without reuse.
    const unreused: ItemRange[] = [];
    const markEdited = (items: ItemRange[]): void => {
      for (const item of items) {
        oldTree.edit(
          new Edit({
            startIndex: item.startIndex,
            oldEndIndex: item.endIndex,
            newEndIndex: item.endIndex,
            startPosition: item.startPosition,
            oldEndPosition: item.endPosition,
            newEndPosition: item.endPosition,
          }),
        );
        unreused.push(item);
      }
    };
    markEdited(itemsWithErrors(oldTree));
    for (let round = 0; ; round++) {
      const tree = this.parseOnce(input, oldTree, deadline);
      if (!tree) return undefined;
      const reused = itemsWithErrors(tree).filter(
        (r) => !unreused.some((u) => u.startIndex <= r.startIndex && r.endIndex <= u.endIndex),
      );
      if (reused.length === 0) return tree;
      tree.delete();
      // The errors moved again and again: nothing reused.
      if (round === MAX_RECOVERY_ROUNDS) return this.parseOnce(input, null, deadline);
      markEdited(reused);
    }
  }

  private parseOnce(input: string, oldTree: Tree | null, deadline: number): Tree | undefined {
    // Returning true from the progress callback cancels the parse (the .d.ts types it as void).
    const progressCallback = (): boolean => performance.now() > deadline;
    const tree = this.parser.parse(chunksOf(input), oldTree, { progressCallback });
    if (!tree) {
      // A cancelled parse would otherwise resume on the next call with other text.
      this.parser.reset();
      return undefined;
    }
    return tree;
  }
}

/** UTF-16 code units handed to the parser at a time: fewer than web-tree-sitter's buffer holds (5,119). */
const CHUNK = 4096;

/**
 * `text` as the parser reads it, a chunk at a time from where it asks, each ending on a whole code point.
 * Given a string, web-tree-sitter cuts it every 5,119 code units wherever that falls: an emoji across
 * a cut was read as two broken halves, and since an incremental reparse asks from other places than a
 * fresh parse, the two read the same text differently.
 */
function chunksOf(text: string): (index: number) => string {
  return (index) => {
    let end = index + CHUNK;
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end--;
    return text.slice(index, end);
  };
}

/** Reparses of recoverAsFresh before it gives up reuse altogether. */
const MAX_RECOVERY_ROUNDS = 4;

interface ItemRange {
  startIndex: number;
  endIndex: number;
  startPosition: Point;
  endPosition: Point;
}

/**
 * Where the top-level items of `tree` holding a syntax error are (the whole tree if the error is at its
 * top): copied out, since a node reads its positions from its tree, which is deleted or edited next.
 */
function itemsWithErrors(tree: Tree): ItemRange[] {
  const root = tree.rootNode;
  if (!root.hasError) return [];
  const out: ItemRange[] = [];
  const copy = (n: Node): ItemRange => ({
    startIndex: n.startIndex,
    endIndex: n.endIndex,
    startPosition: n.startPosition,
    endPosition: n.endPosition,
  });
  // `children` reads them in one call (child(i) walks from the first child each time).
  for (const item of root.children) if (item.hasError) out.push(copy(item));
  return out.length > 0 ? out : [copy(root)];
}

/**
 * CUDA's `__align__(n)` (a macro for `__attribute__((aligned(n)))`), which the grammar does not know: it
 * reads `__shared__ __align__(16) char buf[N];` as a broken declarator. Blanked for the parse only, with
 * spaces of the same length, so every offset and position holds; rules read names from the file's text.
 */
export function blankUnknownAttributes(text: string): string {
  let at = text.indexOf("__align__");
  if (at < 0) return text;
  let out = "";
  let done = 0;
  for (; at >= 0; at = text.indexOf("__align__", at + 1)) {
    let i = at + 9;
    while (text[i] === " " || text[i] === "\t") i++;
    if (text[i] !== "(" || at < done) continue;
    let depth = 0;
    for (; i < text.length; i++) {
      if (text[i] === "(") depth++;
      else if (text[i] === ")" && --depth === 0) break;
      else if (text[i] === "\n" || text[i] === ";") break;
    }
    if (depth !== 0 || i >= text.length) continue;
    out += text.slice(done, at) + " ".repeat(i + 1 - at);
    done = i + 1;
  }
  return out + text.slice(done);
}

let shared: Promise<CudaParser> | undefined;
/** The process-wide parser; the wasm is loaded on first use. A failed load is retried next time. */
export function cudaParser(): Promise<CudaParser> {
  shared ??= CudaParser.load().catch((err: unknown) => {
    shared = undefined;
    throw err;
  });
  return shared;
}

/** A text change in LSP terms (0-based, UTF-16): the range it replaced and its new text. */
export interface TextChange {
  startOffset: number;
  oldEndOffset: number;
  start: Point;
  oldEnd: Point;
  newText: string;
}

/** The end point of `newText` inserted at `start`: rows and UTF-16 columns, as tree-sitter counts them here. */
function endPoint(start: Point, newText: string): Point {
  const lines = newText.split(/\r\n|\r|\n/);
  if (lines.length === 1) return { row: start.row, column: start.column + newText.length };
  return { row: start.row + lines.length - 1, column: lines[lines.length - 1]!.length };
}

/** Tells `tree` about one change so the next parse can reuse the unchanged parts. */
export function editTree(tree: Tree, change: TextChange): void {
  tree.edit(
    new Edit({
      startIndex: change.startOffset,
      oldEndIndex: change.oldEndOffset,
      newEndIndex: change.startOffset + change.newText.length,
      startPosition: change.start,
      oldEndPosition: change.oldEnd,
      newEndPosition: endPoint(change.start, change.newText),
    }),
  );
}
