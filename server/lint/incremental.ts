// Relinting only what an edit touched. The top-level items (definitions, declarations, preprocessor
// blocks) that the edit and the reparse's changed ranges overlap form a window; the rules run over it,
// and the findings outside it are carried over, moved by the edit. That is exact only while nothing
// outside depends on the window's text, which is checked after the windowed run: the whole-file context
// key, the file-scope FP16/BF16 declarations in the window and the definitions there of every constant a
// rule has looked up must be as before, and no finding may depend on text past its own definition.
// Otherwise the caller lints the whole file.
import type { Range, Tree } from "web-tree-sitter";
import type { Finding, Fix, TextEdit } from "../rules/rule";
import { constantSites } from "../rules/util/constEval";
import { fileContextKey } from "../rules/util/fileContext";
import { FileIndex, type LintWindow, type PlacedHalfEntry } from "../rules/util/fileIndex";
import { runRules, type LintOptions, type RuleRun } from "./engine";
import type { TextChange } from "./parser";
import { advance, atOrBefore, before, moveSpan, type Point } from "./textPoints";

/** The last lint of a document: its text, options (`optionsKey`) and the rules' raw output. */
export interface LintState {
  text: string;
  optionsKey: string;
  run: RuleRun;
}

export function optionsKey(opts: LintOptions): string {
  return JSON.stringify([
    opts.fileName,
    [...new Set(opts.targets)].sort((a, b) => a - b),
    opts.rules.map((r) => r.id),
    opts.ruleOptions ?? {},
    opts.severity ?? {},
  ]);
}

/** [start, end) offsets in the current text that differ from the last linted text or parse differently. */
export type Region = LintWindow;

/** The regions after one more change: the earlier ones moved to where they are now, and the change's own. */
export function addChange(regions: readonly Region[], change: TextChange): Region[] {
  const added = change.newText.length;
  const map = (o: number, inside: number): number =>
    o <= change.startOffset
      ? o
      : o >= change.oldEndOffset
        ? o + added - (change.oldEndOffset - change.startOffset)
        : inside;
  const moved = regions.map((r) => {
    const start = map(r.start, change.startOffset);
    return { start, end: Math.max(start, map(r.end, change.startOffset + added)) };
  });
  return [...moved, { start: change.startOffset, end: change.startOffset + added }];
}

export function changedRegions(ranges: readonly Range[]): Region[] {
  return ranges.map((r) => ({ start: r.startIndex, end: r.endIndex }));
}

/**
 * [lo, hi) widened to whole top-level items of `tree`: the items holding its first and last character
 * (for an empty region, the characters on either side of it). Ends falling between items stay put.
 */
function toItems(tree: Tree, lo: number, hi: number, length: number): Region {
  const root = tree.rootNode;
  const a = hi > lo ? lo : Math.max(0, lo - 1);
  const b = hi > lo ? hi - 1 : lo;
  const first = root.firstChildForIndex(a);
  const last = root.firstChildForIndex(b);
  return {
    start: first ? Math.min(first.startIndex, a) : a,
    end: last ? Math.max(last.startIndex <= b ? last.endIndex : b + 1, hi) : Math.max(length, hi),
  };
}

/**
 * One region covering `regions` whose ends are item boundaries in every tree given: after a reparse,
 * the edited old tree and the new one (error recovery can split or merge items around an edit).
 */
export function windowAround(trees: readonly Tree[], regions: readonly Region[], length: number): Region {
  let w = { start: Math.min(...regions.map((r) => r.start)), end: Math.max(...regions.map((r) => r.end)) };
  for (let i = 0; i < 16; i++) {
    const before = w;
    for (const t of trees) w = toItems(t, w.start, w.end, length);
    if (w.start === before.start && w.end === before.end) return w;
  }
  return { start: 0, end: length };
}

/** The row and column of `offset`, from the nearest node that starts at or before it. */
function pointOf(tree: Tree, text: string, offset: number): Point {
  if (offset === 0) return { row: 0, column: 0 };
  const n = tree.rootNode.descendantForIndex(offset);
  const from = n && n.startIndex <= offset ? n : tree.rootNode;
  return advance(from.startPosition, text.slice(from.startIndex, offset));
}

const entriesKey = (entries: readonly PlacedHalfEntry[]): string =>
  JSON.stringify(entries.map((e) => e.entry));

/**
 * Lints only the window around `regions` (offsets in `text` that changed since `prev`, which was linted
 * with the same options) and carries the other findings over. Undefined when that cannot be exact: the
 * caller then lints the whole file.
 */
export function relint(
  prev: LintState,
  tree: Tree,
  text: string,
  regions: readonly Region[],
  opts: LintOptions,
): RuleRun | undefined {
  if (regions.length === 0) return undefined;
  if (prev.run.facts.fileWide || prev.run.failures.length > 0) return undefined;
  const window = windowAround([tree], regions, text.length);
  const startPoint = pointOf(tree, text, window.start);
  const delta = text.length - prev.text.length;
  const oldEnd = window.end - delta;
  // Everything outside the window must be the text the findings were made for.
  if (oldEnd < window.start || prev.text.slice(0, window.start) !== text.slice(0, window.start))
    return undefined;
  if (prev.text.slice(oldEnd) !== text.slice(window.end)) return undefined;

  const oldEntries = prev.run.facts.fileHalfEntries;
  const carried = {
    fileHalfEntries: oldEntries
      .filter((e) => e.offset < window.start || e.offset >= oldEnd)
      .map((e) => (e.offset < window.start ? e : { offset: e.offset + delta, entry: e.entry })),
  };
  // A whole-file fact changed (cheap to tell): every finding may change, so do not lint the window first.
  const contextKey = fileContextKey(FileIndex.begin(tree, text));
  if (contextKey !== prev.run.contextKey) return undefined;
  const run = runRules(tree, text, opts, { window, carried, contextKey });
  if (run.failures.length > 0 || run.facts.fileWide) return undefined;

  // Findings elsewhere that read the window's text: file-scope FP16/BF16 declarations and constants.
  const inWindow = (e: PlacedHalfEntry, end: number): boolean => e.offset >= window.start && e.offset < end;
  const oldIn = oldEntries.filter((e) => inWindow(e, oldEnd));
  const newIn = run.facts.fileHalfEntries.filter((e) => inWindow(e, window.end));
  if (entriesKey(oldIn) !== entriesKey(newIn)) return undefined;
  const oldText = prev.text.slice(window.start, oldEnd);
  const newText = text.slice(window.start, window.end);
  for (const name of prev.run.facts.constantNames) {
    if (!oldText.includes(name) && !newText.includes(name)) continue;
    if (constantSites(oldText, name).join("\n") !== constantSites(newText, name).join("\n")) return undefined;
  }

  const oldEndPoint = advance(startPoint, oldText);
  const newEndPoint = advance(startPoint, newText);
  const findings: Finding[] = [];
  for (const f of prev.run.findings) {
    const span = moveSpan(f.span, startPoint, oldEndPoint, newEndPoint);
    if (span === "inside") continue;
    const fixes: Fix[] = [];
    for (const fix of f.fixes) {
      const edits: TextEdit[] = [];
      for (const e of fix.edits) {
        const moved = moveSpan(e.span, startPoint, oldEndPoint, newEndPoint);
        // A fix outside its finding's definition that edits the window: only a full run can redo it.
        if (moved === "inside") return undefined;
        edits.push({ ...e, span: moved });
      }
      fixes.push({ ...fix, edits });
    }
    findings.push({ ...f, span, fixes });
  }
  for (const f of run.findings) {
    const s = { row: f.span.startLine, column: f.span.startColumn };
    if (atOrBefore(startPoint, s) && before(s, newEndPoint)) findings.push(f);
  }
  const constantNames = new Set([...prev.run.facts.constantNames, ...run.facts.constantNames]);
  return { ...run, findings, facts: { ...run.facts, constantNames } };
}
