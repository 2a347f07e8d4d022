// A Python file's statements as blocks, by indentation: enough to tell an if/elif/else chain's branches
// apart in a setup.py. Syntax only; a statement is its tokens (buildSyntax's pythonTokens).
import { pythonTokens, type PyToken } from "./buildSyntax";

export interface PyStatement {
  tokens: PyToken[];
  /** The keyword of a compound statement (if, elif, else, for, def…); its condition is `tokens` after it. */
  head?: string;
  body?: PyStatement[];
}

const COMPOUND = /^(?:if|elif|else|for|while|def|class|with|try|except|finally)$/;

interface Line {
  indent: number;
  tokens: PyToken[];
}

/** Logical lines: a line break inside brackets or after a backslash continues the line. */
function logicalLines(text: string, tokens: readonly PyToken[]): Line[] {
  const lines: Line[] = [];
  let depth = 0;
  let prevEnd = 0;
  for (const t of tokens) {
    const gap = text.slice(prevEnd, t.start);
    const broken = /\n/.test(gap.replace(/\\\r?\n/g, "").replace(/#[^\n]*/g, ""));
    if (lines.length === 0 || (depth === 0 && broken)) {
      const lineStart = text.lastIndexOf("\n", t.start - 1) + 1;
      lines.push({ indent: t.start - lineStart, tokens: [] });
    }
    lines[lines.length - 1]!.tokens.push(t);
    if (t.kind === "op" && "([{".includes(t.text)) depth++;
    else if (t.kind === "op" && ")]}".includes(t.text)) depth = Math.max(0, depth - 1);
    prevEnd = t.end;
  }
  return lines;
}

/** The index of a compound header's `:` (the first at bracket depth 0), or -1. */
function headerColon(tokens: readonly PyToken[]): number {
  let depth = 0;
  for (let i = 1; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind !== "op") continue;
    if ("([{".includes(t.text)) depth++;
    else if (")]}".includes(t.text)) depth--;
    else if (t.text === ":" && depth === 0 && tokens[i + 1]?.text !== "=") return i;
  }
  return -1;
}

function statements(lines: readonly Line[], at: number, indent: number): [PyStatement[], number] {
  const out: PyStatement[] = [];
  let i = at;
  while (i < lines.length && lines[i]!.indent >= indent) {
    const line = lines[i]!;
    const first = line.tokens[0]!;
    const colon = first.kind === "name" && COMPOUND.test(first.text) ? headerColon(line.tokens) : -1;
    if (colon < 0) {
      out.push({ tokens: line.tokens });
      i++;
      continue;
    }
    const inline = line.tokens.slice(colon + 1);
    let body: PyStatement[];
    if (inline.length > 0) {
      body = [{ tokens: inline }];
      i++;
    } else {
      const next = lines[i + 1];
      [body, i] = next && next.indent > line.indent ? statements(lines, i + 1, next.indent) : [[], i + 1];
    }
    out.push({ tokens: line.tokens.slice(1, colon), head: first.text, body });
  }
  return [out, i];
}

/** The file's top-level statements, compound ones with their bodies. */
export function pythonStatements(text: string): PyStatement[] {
  const lines = logicalLines(text, pythonTokens(text));
  return statements(lines, 0, lines[0]?.indent ?? 0)[0];
}
