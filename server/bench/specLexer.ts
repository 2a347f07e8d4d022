// Tokens of one `@bench` comment line, each with its position in the document (for diagnostics).
import type { Span } from "../rules/rule";

export type TokenKind = "ident" | "number" | "punct" | "string";

export interface Token {
  kind: TokenKind;
  text: string;
  span: Span;
}

/** A spec error with the exact place it refers to; becomes a diagnostic or a one-line CLI error. */
export class SpecError extends Error {
  constructor(
    message: string,
    readonly span: Span,
    readonly severity: "error" | "warning" = "error",
  ) {
    super(message);
    this.name = "SpecError";
  }
}

export function spanOf(line: number, start: number, end: number): Span {
  return { startLine: line, startColumn: start, endLine: line, endColumn: end };
}

/** From the start of `a` to the end of `b`. */
export function joinSpans(a: Span, b: Span): Span {
  return { startLine: a.startLine, startColumn: a.startColumn, endLine: b.endLine, endColumn: b.endColumn };
}

// `//` is the floor-division operator; two-character operators first.
const PUNCT2 = ["//", "::", "<<", ">>"];
const PUNCT1 = "[](),=:*+-/%<>";

/**
 * Splits `text` (the part of a comment line after `@bench`, starting at column `col0` of document line
 * `line`) into tokens. Identifiers may contain `::` (C++ qualified names) and `.`-free digits/letters.
 */
export function lexLine(text: string, line: number, col0: number): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === " " || c === "\t" || c === "\r") {
      i++;
      continue;
    }
    const start = i;
    if (/[A-Za-z_]/.test(c)) {
      i++;
      for (;;) {
        if (i < text.length && /[A-Za-z0-9_]/.test(text[i]!)) i++;
        else if (text.startsWith("::", i) && /[A-Za-z_]/.test(text[i + 2] ?? "")) i += 2;
        else break;
      }
      tokens.push({ kind: "ident", text: text.slice(start, i), span: spanOf(line, col0 + start, col0 + i) });
      continue;
    }
    if (/[0-9.]/.test(c)) {
      const m = /^(?:0[xX][0-9a-fA-F]+|(?:[0-9][0-9_]*)?(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)[uUlLfF]*/.exec(
        text.slice(i),
      );
      const len = m && m[0].length > 0 && m[0] !== "." ? m[0].length : 1;
      i += len;
      // A letter glued to a number ("12ab") is a mistake, not two tokens.
      while (i < text.length && /[A-Za-z0-9_]/.test(text[i]!)) i++;
      tokens.push({ kind: "number", text: text.slice(start, i), span: spanOf(line, col0 + start, col0 + i) });
      continue;
    }
    if (c === '"') {
      const end = text.indexOf('"', i + 1);
      if (end < 0) throw new SpecError("unterminated string", spanOf(line, col0 + i, col0 + text.length));
      i = end + 1;
      tokens.push({
        kind: "string",
        text: text.slice(start + 1, end),
        span: spanOf(line, col0 + start, col0 + i),
      });
      continue;
    }
    const two = text.slice(i, i + 2);
    if (PUNCT2.includes(two)) {
      i += 2;
      tokens.push({ kind: "punct", text: two, span: spanOf(line, col0 + start, col0 + i) });
      continue;
    }
    if (PUNCT1.includes(c)) {
      i++;
      tokens.push({ kind: "punct", text: c, span: spanOf(line, col0 + start, col0 + i) });
      continue;
    }
    throw new SpecError(`unexpected character '${c}'`, spanOf(line, col0 + i, col0 + i + 1));
  }
  return tokens;
}

/** A cursor over one line's tokens; `end` is where "expected X" errors point when the line ran out. */
export class TokenStream {
  private pos = 0;
  constructor(
    readonly tokens: Token[],
    private readonly endSpan: Span,
  ) {}

  peek(offset = 0): Token | undefined {
    return this.tokens[this.pos + offset];
  }

  next(): Token | undefined {
    return this.tokens[this.pos++];
  }

  atEnd(): boolean {
    return this.pos >= this.tokens.length;
  }

  /** The span of the next token, or the end of the line. */
  here(): Span {
    return this.peek()?.span ?? this.endSpan;
  }

  isPunct(text: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t?.kind === "punct" && t.text === text;
  }

  isIdent(text?: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t?.kind === "ident" && (text === undefined || t.text === text);
  }

  expectPunct(text: string, what?: string): Token {
    const t = this.peek();
    if (t?.kind === "punct" && t.text === text) return this.next()!;
    throw new SpecError(
      `expected '${text}'${what ? ` ${what}` : ""}${t ? `, found '${t.text}'` : ""}`,
      this.here(),
    );
  }

  expectIdent(what: string): Token {
    const t = this.peek();
    if (t?.kind === "ident") return this.next()!;
    throw new SpecError(`expected ${what}${t ? `, found '${t.text}'` : ""}`, this.here());
  }
}
