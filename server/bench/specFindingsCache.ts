// Spec findings for the language server, reused across edits that cannot change them. The kernel scan
// reads only the kernels' headers (the code and comment block before each `__global__`, its signature),
// `@bench` lines, namespace names, and brackets, comments, strings and preprocessor lines (for where
// things start and end).
// An edit outside every header and `@bench` line, made of identifier characters and white space only,
// and not forming a word that starts a kernel or a namespace, leaves the scan as it was: its findings
// only move with the text. Anything else scans the file again.
import type { Finding } from "../rules/rule";
import { advance, moveSpan } from "../lint/textPoints";
import { specScan } from "./specDiagnostics";

const INERT = /^[\w \t\r\n]*$/;
const KEYWORDS = /\b(?:__global__|namespace|template|extern)\b/;

interface Scan {
  text: string;
  findings: Finding[];
  headers: { start: number; end: number }[];
}

function commonPrefix(a: string, b: string): number {
  let lo = 0;
  let hi = Math.min(a.length, b.length);
  // Binary search on whole-slice equality: a few native comparisons instead of a character loop.
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (a.slice(lo, mid) === b.slice(lo, mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function commonSuffix(a: string, b: string, max: number): number {
  let lo = 0;
  let hi = Math.min(max, a.length, b.length);
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (a.slice(a.length - mid, a.length - lo) === b.slice(b.length - mid, b.length - lo)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The whole lines holding [from, to) of `text`. */
function linesAround(text: string, from: number, to: number): string {
  const start = text.lastIndexOf("\n", from - 1) + 1;
  const nl = text.indexOf("\n", to);
  return text.slice(start, nl < 0 ? text.length : nl);
}

/** The identifiers touching or inside [from, to) of `text`. */
function wordsAround(text: string, from: number, to: number): string {
  let a = from;
  let b = to;
  while (a > 0 && /\w/.test(text[a - 1]!)) a--;
  while (b < text.length && /\w/.test(text[b]!)) b++;
  return text.slice(a, b);
}

/** The last scan's findings moved to `text`, when the edit between them cannot change the scan. */
function reuse(last: Scan, text: string): Scan | undefined {
  const old = last.text;
  const p = commonPrefix(old, text);
  const s = commonSuffix(old, text, Math.min(old.length, text.length) - p);
  const oldEnd = old.length - s;
  const newEnd = text.length - s;
  const removed = old.slice(p, oldEnd);
  const added = text.slice(p, newEnd);
  if (!INERT.test(removed) || !INERT.test(added)) return undefined;
  // Joining or splitting lines can move code into or out of a `//` comment or a preprocessor line.
  if (
    /\n/.test(removed + added) &&
    /[/#\\"']/.test(linesAround(old, p, oldEnd) + linesAround(text, p, newEnd))
  )
    return undefined;
  if (KEYWORDS.test(wordsAround(old, p, oldEnd)) || KEYWORDS.test(wordsAround(text, p, newEnd)))
    return undefined;
  // `@bench` lines are read whole; a namespace's name qualifies the kernels inside it.
  const lines = linesAround(old, p, oldEnd) + "\n" + linesAround(text, p, newEnd);
  if (lines.includes("@bench") || /\bnamespace\b/.test(lines)) return undefined;
  if (last.headers.some((h) => p <= h.end && h.start <= oldEnd)) return undefined;

  const start = advance({ row: 0, column: 0 }, old.slice(0, p));
  const oldEndPoint = advance(start, removed);
  const newEndPoint = advance(start, added);
  const findings: Finding[] = [];
  for (const f of last.findings) {
    const span = moveSpan(f.span, start, oldEndPoint, newEndPoint);
    if (span === "inside") return undefined;
    findings.push({ ...f, span });
  }
  const delta = text.length - old.length;
  const headers = last.headers.map((h) =>
    h.start > oldEnd ? { start: h.start + delta, end: h.end + delta } : h,
  );
  return { text, findings, headers };
}

/** One document's spec findings, scanned again only when an edit could change them. */
export class SpecFindingsCache {
  private last: Scan | undefined;
  /** How many times the file was scanned (the rest were moved findings): for tests and benchmarks. */
  scans = 0;

  findings(text: string): Finding[] {
    const moved = this.last && reuse(this.last, text);
    if (moved) this.last = moved;
    else {
      const { findings, zones } = specScan(text);
      this.scans++;
      this.last = { text, findings, headers: zones };
    }
    return this.last.findings;
  }
}
