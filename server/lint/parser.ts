// Loads web-tree-sitter and the tree-sitter-cuda grammar once per process, and parses with a time bound.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { Edit, Language, Parser, type Point, type Tree } from "web-tree-sitter";

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
   * Parses `text`, reusing `oldTree` (already `edit`ed to match `text`) when given. Returns
   * undefined when parsing ran past `timeoutMs`: the caller reports that instead of linting.
   */
  parse(text: string, oldTree?: Tree | null, timeoutMs = DEFAULT_PARSE_TIMEOUT_MS): Tree | undefined {
    const deadline = performance.now() + timeoutMs;
    // Returning true from the progress callback cancels the parse (the .d.ts types it as void).
    const progressCallback = (): boolean => performance.now() > deadline;
    const tree = this.parser.parse(blankUnknownAttributes(text), oldTree ?? null, { progressCallback });
    if (!tree) {
      // A cancelled parse would otherwise resume on the next call with other text.
      this.parser.reset();
      return undefined;
    }
    return tree;
  }
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
