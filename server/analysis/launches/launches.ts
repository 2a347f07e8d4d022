// Kernel launches: each `<<<grid, block, smem, stream>>>` call and its configuration. Most launches name
// their configuration with plain names and integers (`<<<rows, kBlock, 0, stream>>>`): those arguments are
// read from the text, and their nodes (a wasm call each, and one per node for its type) only on demand.
import { splitTopLevel } from "../source/textScans";
import type { Language, Node } from "web-tree-sitter";
import { isSpaceCode } from "../source/charCodes";
import type { FileIndex } from "../source/fileIndex";

const KERNEL_CALL: ReadonlySet<string> = new Set(["kernel_call_syntax"]);

/** An integer literal that tree-sitter reads as one number_literal. */
const INTEGER = /^(?:0[xX][0-9a-fA-F]+|\d+)[uUlL]*$/;
const WORD = /^[A-Za-z_]\w*$/;

/**
 * Words that are not an identifier in an expression: the grammar's keywords (`true`, `NULL`, `this`...) are
 * read from the language; these are the ones it hides inside one token (tree-sitter-c's primitive_type,
 * true and false).
 */
const HIDDEN_WORDS = [
  "TRUE",
  "FALSE",
  "bool",
  "char",
  "int",
  "float",
  "double",
  "void",
  "size_t",
  "ssize_t",
  "ptrdiff_t",
  "intptr_t",
  "uintptr_t",
  "charptr_t",
  "nullptr_t",
  "max_align_t",
  ...[8, 16, 32, 64].flatMap((n) => [`int${n}_t`, `uint${n}_t`, `char${n}_t`]),
];

/** One launch: the call, and its configuration's arguments. */
export class Launch {
  private args: Node[] | undefined;

  constructor(
    readonly call: Node,
    private readonly syntax: Node,
    private readonly mayHoldComment: boolean,
    /** Each argument's text when every one is a plain identifier or integer literal, else undefined. */
    readonly plain: readonly string[] | undefined,
    /** The `<<<…>>>` text, and the grammar's reserved words, for `texts`. */
    private readonly written: string,
    private readonly reserved: ReadonlySet<string>,
    /** The syntax is known to hold no error (false: not asked). */
    private readonly clean: boolean,
  ) {}

  private someTexts: readonly (string | undefined)[] | undefined;
  private rawTexts: readonly string[] | undefined;
  private textsRead = false;

  /** Each argument's text where it is a plain identifier or integer literal (see argTexts), on demand. */
  get texts(): readonly (string | undefined)[] | undefined {
    if (this.plain) return this.plain;
    if (!this.textsRead) {
      this.textsRead = true;
      const found = argTexts(this.written, this.syntax, this.clean, this.reserved);
      this.someTexts = found?.[0];
      this.rawTexts = found?.[1];
    }
    return this.someTexts;
  }

  /** Argument `i`'s whole text (trimmed) where `texts` is known, plain or not, else undefined. */
  argText(i: number): string | undefined {
    return this.texts ? (this.plain ?? this.rawTexts)?.[i] : undefined;
  }

  /**
   * The function's name where argument `i` is a call and nothing else (`threads_for(n)`: a name, then
   * one parenthesized group to the end), read from its text (argText), else undefined.
   */
  callee(i: number): string | undefined {
    const t = this.argText(i);
    const m = t === undefined ? null : CALL_START.exec(t);
    if (!m || this.reserved.has(m[1]!) || closingParen(t!, m[0].length - 1) !== t!.length - 1)
      return undefined;
    return m[1];
  }

  /** The <<<grid, block, smem, stream>>> arguments' nodes. */
  get config(): Node[] {
    this.args ??= this.mayHoldComment
      ? this.syntax.namedChildren.filter((n): n is Node => !!n && n.type !== "comment")
      : this.syntax.namedChildren.filter((n): n is Node => !!n);
    return this.args;
  }
}

export function findLaunches(idx: FileIndex): Launch[] {
  const out: Launch[] = [];
  const { text, window } = idx;
  const reserved = reservedWords(idx);
  // indexOf finds a fixed string faster than a regex; the search goes on after each match, as a scan does.
  for (
    let at = text.indexOf("<<<", window.start);
    at >= 0 && at < window.end;
    at = text.indexOf("<<<", at + 3)
  ) {
    const found = callAt(idx, at);
    if (!found) continue;
    const [call, k, clean] = found;
    const written = text.slice(at, (clean && closeOf(text, at)) || k.endIndex);
    // Only where the text has a `//` or `/*` can a comment be among the arguments.
    const mayHoldComment = COMMENT_START.test(written);
    const plain = mayHoldComment ? undefined : plainArgs(written, k, clean, reserved);
    out.push(new Launch(call, k, mayHoldComment, plain, written, reserved, clean));
  }
  return out;
}

const COMMENT_START = /\/[/*]/;

/**
 * The end of the `>>>` closing the `<<<` at `at`, read from the text where that is sure (else 0): for a
 * syntax without errors, the first `>>>` after it where nothing between them can hold one otherwise (no
 * `<`, `>`, comment, string or directive). Node.endIndex crosses into wasm.
 */
function closeOf(text: string, at: number): number {
  const close = text.indexOf(">>>", at + 3);
  if (close < 0) return 0;
  for (let i = at + 3; i < close; i++) if (UNSURE.has(text.charCodeAt(i))) return 0;
  return close + 3;
}

/** Characters that may put a `>>>` inside the arguments, or hide one: < > / " ' # \\. */
const UNSURE: ReadonlySet<number> = new Set([..."<>/\"'#\\"].map((ch) => ch.charCodeAt(0)));
const CALL_START = /^([A-Za-z_]\w*)\s*\(/;

/** The offset of the `)` closing the `(` at `open` in `t` (argText's texts hold no strings), or -1. */
function closingParen(t: string, open: number): number {
  let depth = 0;
  for (let i = open; i < t.length; i++) {
    const c = t[i];
    if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
  }
  return -1;
}

/**
 * The call and its kernel_call_syntax whose `<<<` is at `at`, if that is a launch, and whether the syntax
 * is known to hold no error (false: not asked).
 */
function callAt(idx: FileIndex, at: number): [Node, Node, boolean] | undefined {
  // Node.parent searches down from the root: the smallest node around the `<<<` and the character before
  // it is the call, found in one search; its child at `<<<` is the launch syntax.
  const around = at > 0 ? idx.root.namedDescendantForIndex(at - 1, at + 3) : undefined;
  const first = around?.type === "call_expression" ? around.firstNamedChildForIndex(at) : undefined;
  if (first && first.startIndex === at && first.type === "kernel_call_syntax") {
    // As the search from the `<<<` would find it: no named node in the syntax holds the `<<<` itself. One
    // without errors holds `<<<`, its arguments and `>>>` as the grammar has them (no node need be made).
    if (!first.hasError) return [around!, first, true];
    const inner = first.firstNamedChildForIndex(at);
    if (!inner || inner.startIndex > at) return [around!, first, false];
  }
  let k = idx.ownerOf(at, at + 3, KERNEL_CALL);
  if (!k) {
    const tok = idx.nodeAt(at, at + 3);
    const owner = tok.type === "kernel_call_syntax" ? tok : tok.parent;
    if (owner?.type !== "kernel_call_syntax") return undefined;
    k = owner;
  }
  // Each Node.type and Node.parent crosses into wasm: ask once.
  const call = k.parent;
  return call?.type === "call_expression" ? [call, k, false] : undefined;
}

/**
 * The arguments' texts of `<<<…>>>` (`written`, the node `k`; `clean`: k is known to hold no error) when
 * each is a plain name or integer.
 */
function plainArgs(
  written: string,
  k: Node,
  clean: boolean,
  reserved: ReadonlySet<string>,
): string[] | undefined {
  if (!written.endsWith(">>>")) return undefined;
  // Each argument between the commas, trimmed, sliced once (no split list and untrimmed copies).
  const args: string[] = [];
  const stop = written.length - 3;
  for (let start = 3; ;) {
    const comma = written.indexOf(",", start);
    const end = comma < 0 || comma > stop ? stop : comma;
    let a = start;
    let b = end;
    while (a < b && isSpaceCode(written.charCodeAt(a))) a++;
    while (b > a && isSpaceCode(written.charCodeAt(b - 1))) b--;
    const arg = written.slice(a, b);
    if (!INTEGER.test(arg) && !(WORD.test(arg) && !reserved.has(arg))) return undefined;
    args.push(arg);
    if (end === stop) break;
    start = end + 1;
  }
  // The tree agrees: as many arguments, and no error among them (a wasm call each, but no node made).
  return k.namedChildCount === args.length && (clean || !k.hasError) ? args : undefined;
}

/**
 * The arguments' texts of `<<<…>>>` (`written`, the node `k`), each where it is a plain name or integer
 * (`<<<(n + 255) / 256, 256>>>` gives [undefined, "256"]), and each whole (trimmed); undefined where none
 * is plain, or where the text cannot be split at its commas for sure (a comment, a string, a template's
 * `<…>` or a macro).
 */
function argTexts(
  written: string,
  k: Node,
  clean: boolean,
  reserved: ReadonlySet<string>,
): [(string | undefined)[], string[]] | undefined {
  if (!written.endsWith(">>>")) return undefined;
  const inner = written.slice(3, -3);
  if (/\/\/|\/\*|["'<>#]/.test(inner)) return undefined;
  const raw = splitArgs(inner).map((a) => a.trim());
  const texts = raw.map((t) => (INTEGER.test(t) || (WORD.test(t) && !reserved.has(t)) ? t : undefined));
  if (texts.every((t) => t === undefined)) return undefined;
  // The tree agrees: as many arguments, and no error among them (a wasm call each, but no node made).
  // A comma split wrongly would give one argument more than the tree has.
  return k.namedChildCount === texts.length && (clean || !k.hasError) ? [texts, raw] : undefined;
}

/** `inner` split at the commas outside any brackets. */
function splitArgs(inner: string): string[] {
  return /[([{]/.test(inner) ? splitTopLevel(inner) : inner.split(",");
}

/** Per grammar (not per file): its words that are not identifiers. */
const reservedOf = new WeakMap<Language, ReadonlySet<string>>();

function reservedWords(idx: FileIndex): ReadonlySet<string> {
  const language = idx.tree.language;
  let words = reservedOf.get(language);
  if (!words) {
    words = new Set([...language.types.filter((t) => WORD.test(t)), ...HIDDEN_WORDS]);
    reservedOf.set(language, words);
  }
  return words;
}
