// Expressions inside one Python statement, as tokens: a call's arguments (positional and keyword), and the
// arms of a conditional expression (`A if COND else B`). Syntax only, on buildSyntax's tokens.
import type { PyToken } from "./buildSyntax";

const opens = (t: PyToken): boolean => t.kind === "op" && "([{".includes(t.text);
const closes = (t: PyToken): boolean => t.kind === "op" && ")]}".includes(t.text);

export interface CallArg {
  /** The keyword of `name=value`; undefined for a positional argument. */
  keyword?: string;
  tokens: PyToken[];
}

/** The arguments of the call whose `(` is at `open`. */
export function callArgs(tokens: readonly PyToken[], open: number): CallArg[] {
  const out: CallArg[] = [];
  let cur: PyToken[] = [];
  const flush = (): void => {
    if (cur.length === 0) return;
    const kw = cur[0]!.kind === "name" && cur[1]?.text === "=" && cur[2]?.text !== "=";
    out.push(kw ? { keyword: cur[0]!.text, tokens: cur.slice(2) } : { tokens: cur });
    cur = [];
  };
  let depth = 0;
  for (let i = open + 1; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (closes(t) && depth === 0) break;
    if (opens(t)) depth++;
    else if (closes(t)) depth--;
    if (t.text === "," && depth === 0) flush();
    else cur.push(t);
  }
  flush();
  return out;
}

/** The calls of `names` in the tokens: where each name stands and its arguments. */
export function callsOf(tokens: readonly PyToken[], names: RegExp): { at: number; args: CallArg[] }[] {
  const out: { at: number; args: CallArg[] }[] = [];
  tokens.forEach((t, i) => {
    if (t.kind === "name" && names.test(t.text) && tokens[i + 1]?.text === "(")
      out.push({ at: i, args: callArgs(tokens, i + 1) });
  });
  return out;
}

/** One `A if COND else B`: token index ranges [start, end) of its parts. */
export interface Conditional {
  then: [number, number];
  cond: [number, number];
  otherwise: [number, number];
}

/** Where the expression around index `i` begins or ends, in direction `step`, at the same bracket depth. */
function exprEdge(tokens: readonly PyToken[], i: number, step: 1 | -1): number {
  let depth = 0;
  let j = i;
  for (; j >= 0 && j < tokens.length; j += step) {
    const t = tokens[j]!;
    const inward = step === 1 ? opens(t) : closes(t);
    const outward = step === 1 ? closes(t) : opens(t);
    if (inward) depth++;
    else if (outward && depth-- === 0) break;
    else if (depth === 0 && (t.text === "," || t.text === "=" || t.text === ":")) break;
    else if (depth === 0 && step === 1 && t.kind === "name" && /^(?:if|for)$/.test(t.text)) break;
  }
  return j;
}

/** The `else` of the conditional expression whose `if` is at `i`, at its depth; -1 for a comprehension's `if`. */
function matchingElse(tokens: readonly PyToken[], i: number): number {
  let depth = 0;
  for (let j = i + 1; j < tokens.length; j++) {
    const t = tokens[j]!;
    if (opens(t)) depth++;
    else if (closes(t) && depth-- === 0) return -1;
    else if (depth === 0 && t.text === ",") return -1;
    else if (depth === 0 && t.kind === "name" && t.text === "else") return j;
  }
  return -1;
}

/** The conditional expressions among the tokens (outermost first). */
export function conditionals(tokens: readonly PyToken[]): Conditional[] {
  const out: Conditional[] = [];
  tokens.forEach((t, i) => {
    if (t.kind !== "name" || t.text !== "if" || i === 0) return;
    const elseAt = matchingElse(tokens, i);
    if (elseAt < 0) return;
    const start = exprEdge(tokens, i - 1, -1) + 1;
    const end = exprEdge(tokens, elseAt + 1, 1);
    out.push({ then: [start, i], cond: [i + 1, elseAt], otherwise: [elseAt + 1, end] });
  });
  return out;
}
