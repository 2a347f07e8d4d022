// Which last-error calls only reset the error state: `cudaGetLastError();` or `(void)cudaGetLastError();`
// (cudaPeekAtLastError too) as a statement of its own, its result discarded, as code does after a failed
// API call it recovers from (a registration that falls back to a copy). Such a call checks nothing: a
// function or macro whose only last-error calls are resets is no launch check (ownChecks.ts,
// launchChecks.ts), and a reset in a function that launches nothing does not show that its file checks
// launches (checksElsewhere.ts). A reset right after a launch is still read as that launch's check
// (checkFinder.ts), as before.
//
// Read from the text, in code whose comments and literals are blanked: the call is `name()` then `;`, and
// what stands before it ends or opens a statement (`;`, `{`, `}`, a label's `:`, the `)` of a cast or a
// condition, `else`, `do`, or nothing). Cannot see: a reset through a macro (`#define CLEAR()
// cudaGetLastError()`), `static_cast<void>(…)`, a discarded call inside a comma expression.
import { isWordCode } from "../source/charCodes";

/** The runtime's last-error calls, which a discarded call of leaves checking nothing. */
export const RESET_CALLS: readonly string[] = ["cudaGetLastError", "cudaPeekAtLastError"];

/** `name()` then `;`, from the name's end (sticky). */
const DISCARDED_TAIL = /\s*\(\s*\)\s*;/y;

/** Whether the call of `name` at `at` in `code` (comments and literals blanked) is a reset. */
export function isReset(code: string, at: number, name: string): boolean {
  if (!RESET_CALLS.includes(name)) return false;
  DISCARDED_TAIL.lastIndex = at + name.length;
  if (!DISCARDED_TAIL.test(code)) return false;
  let i = skipSpaces(code, at);
  // `::cudaGetLastError();`, the global namespace's.
  if (code.startsWith("::", i - 2)) i = skipSpaces(code, i - 2);
  if (i === 0) return true;
  const c = code[i - 1]!;
  if (c === ";" || c === "{" || c === "}" || c === ")") return true;
  if (c === ":") return code[i - 2] !== ":";
  let start = i;
  while (start > 0 && isWordCode(code.charCodeAt(start - 1))) start--;
  const word = code.slice(start, i);
  return word === "else" || word === "do";
}

/** The offset of the first non-space character of the run of spaces ending at `at`. */
function skipSpaces(code: string, at: number): number {
  let i = at;
  while (i > 0 && /\s/.test(code[i - 1]!)) i--;
  return i;
}

const RESET_NAME = new RegExp(`\\b(?:${RESET_CALLS.join("|")})\\b`, "g");

/** `code` (comments and literals blanked) with each reset's name blanked: what is left to name a check. */
export function withoutResets(code: string): string {
  return code.replace(RESET_NAME, (name, at: number) =>
    isReset(code, at, name) ? " ".repeat(name.length) : name,
  );
}
