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
    const tree = this.parser.parse(text, oldTree ?? null, { progressCallback });
    if (!tree) {
      // A cancelled parse would otherwise resume on the next call with other text.
      this.parser.reset();
      return undefined;
    }
    return tree;
  }
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
