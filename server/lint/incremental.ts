// Relinting only what an edit touched. The top-level items (definitions, declarations, preprocessor
// blocks) that the edit and the reparse's changed ranges overlap form a window; the rules run over it,
// and the findings outside it are carried over, moved by the edit. That is exact for a rule only while
// nothing it read outside the window depends on the window's text. Each run records, per rule, the
// whole-file facts it read (lint/dependencies.ts): the parts of the whole-file context key, the
// file-scope FP16/BF16 declarations, the constants it looked up, the names whose uses it read, and text
// past a finding's own definition.
// After the windowed run, the facts the edit changed are found (context parts compared, declarations and
// constant definitions in the window compared before and after, a name's uses changed where the name is
// written in the window before or after the edit, "text past a definition" always counts
// as changed); the rules that read one of them run over the whole file again, the others keep their
// findings. When every rule would, the caller lints the whole file.
import type { Range, Tree } from "web-tree-sitter";
import type { Finding, Fix, Span, TextEdit } from "../rules/rule";
import { staleUses, type Dependency } from "./dependencies";
import { changedContext, fileContextKey, reuseContext } from "./fileContext";
import { FileIndex, type LintWindow, type PlacedHalfEntry } from "../analysis/source/fileIndex";
import type { BindingSite } from "../analysis/constants/constSites";
import {
  HALF_LOOK_BACK,
  halfName,
  halfNameKey,
  readHalfTypes,
  type HalfName,
} from "../analysis/types/halfText";
import { runRules, type LintOptions, type RuleRun } from "./engine";
import type { TextChange } from "./parser";
import { editedConstants, sitesAfterEdit } from "./constantEdits";
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
    opts.build
      ? [
          opts.build.targets,
          opts.build.targetsDeclared,
          [...opts.build.defines],
          [...opts.build.undefines],
          opts.build.definesKnown,
          opts.build.pytorch,
        ]
      : null,
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

/** Where the window is in the old and the new text, and how points after it move. */
interface Edit {
  window: Region;
  /** The window's end in the old text. */
  oldEnd: number;
  /** Where a span of the old text is now ("inside": in the window, gone with it). */
  move(span: Span): Span | "inside";
  /** Whether a span of the new text starts in the window. */
  startsInWindow(span: Span): boolean;
}

/**
 * Did the edit change the half declarations rules read across definitions: the file-scope ones in the
 * window, where their names are written outside it, or what a name next to it declares? (Constants:
 * constantEdits.ts.)
 */
function halfDeclsChanged(prev: LintState, run: RuleRun, e: Edit, text: string): boolean {
  const inWindow = (p: PlacedHalfEntry, end: number): boolean => p.offset >= e.window.start && p.offset < end;
  const oldIn = prev.run.facts.fileHalfEntries.filter((p) => inWindow(p, e.oldEnd));
  const newIn = run.facts.fileHalfEntries.filter((p) => inWindow(p, e.window.end));
  if (halfNamesNextTo(prev.run.facts.halfNames, e, text)) return true;
  if (entriesKey(oldIn) === entriesKey(newIn)) return false;
  // A file-scope name types only the places it is written: one written nowhere outside the window (a
  // declaration just added, not used yet) changes no finding there.
  return [...oldIn, ...newIn].some((p) => writtenOutside(text, p.entry.name, e.window));
}

/** Does `name` occur in `text` (as any substring) other than wholly inside `window`? */
function writtenOutside(text: string, name: string, window: Region): boolean {
  const first = text.indexOf(name);
  if (first < 0) return false;
  if (first < window.start) return true;
  return text.indexOf(name, Math.max(first, window.end - name.length + 1)) >= 0;
}

/** A half type name moved by `by` characters (what it declares is compared relative to it). */
function movedName(t: HalfName, by: number): HalfName {
  return { at: t.at + by, reach: t.reach + by, declEnd: t.declEnd && t.declEnd + by, read: t.read };
}

/**
 * Did the edit change what a half type name outside the window declares? The window's own names were
 * read again; a name before it may read declarators (or look ahead) into it, a name after it looks back
 * up to HALF_LOOK_BACK characters. Those are read again and compared; declarators running into the
 * window (broken code splitting a statement across top-level items) count as changed outright.
 */
function halfNamesNextTo(names: readonly HalfName[], e: Edit, text: string): boolean {
  const delta = e.window.end - e.oldEnd;
  for (const t of names) {
    let now: number;
    if (t.at < e.window.start) {
      if (t.declEnd !== undefined && t.declEnd > e.window.start) return true;
      if (t.reach <= e.window.start) continue;
      now = t.at;
    } else if (t.at >= e.oldEnd && t.at < e.oldEnd + HALF_LOOK_BACK + 1) now = t.at + delta;
    else continue;
    const again = readHalfTypes(text, now, now + 1)[0];
    if (again?.at !== now || halfNameKey(halfName(again)) !== halfNameKey(t)) return true;
  }
  return false;
}

/** Every fact some rule read, in the last run or in the window's. */
function* allDeps(...runs: RuleRun[]): Generator<Dependency> {
  for (const run of runs) for (const deps of run.deps.values()) yield* deps;
}

/** Rules that read a stale fact, in the last run or in the window's. */
function readersOf(stale: ReadonlySet<Dependency>, ...runs: RuleRun[]): Set<string> {
  const out = new Set<string>();
  for (const run of runs)
    for (const [rule, deps] of run.deps) for (const d of deps) if (stale.has(d)) out.add(rule);
  return out;
}

/**
 * The last run's findings outside the window, moved by the edit, of the rules not run again. A rule with
 * a fix outside its finding's definition that edits the window joins `rerun` (only a new run can redo it).
 */
function carryOver(findings: readonly Finding[], rerun: Set<string>, e: Edit): Finding[] {
  const out: Finding[] = [];
  for (const f of findings) {
    if (rerun.has(f.rule)) continue;
    const span = e.move(f.span);
    if (span === "inside") continue;
    const fixes = movedFixes(f, e, rerun);
    // Most findings lie where the edit moved nothing: kept as they are, not copied (garbage per edit).
    out.push(span === f.span && fixes === f.fixes ? f : { ...f, span, fixes });
  }
  return out.filter((f) => !rerun.has(f.rule));
}

/** A finding's fixes moved by the edit: the same array when no span moved; an edit inside reruns the rule. */
function movedFixes(f: Finding, e: Edit, rerun: Set<string>): Fix[] {
  let out: Fix[] | undefined;
  f.fixes.forEach((fix, i) => {
    let edits: TextEdit[] | undefined;
    fix.edits.forEach((x, j) => {
      const moved = e.move(x.span);
      if (moved === "inside") rerun.add(f.rule);
      else if (moved !== x.span || edits) {
        edits ??= fix.edits.slice(0, j);
        edits.push(moved === x.span ? x : { ...x, span: moved });
      }
    });
    if (edits || out) {
      out ??= f.fixes.slice(0, i);
      out.push(edits ? { ...fix, edits } : fix);
    }
  });
  return out ?? f.fixes;
}

/** The window run's findings and dependencies joined with the carried findings and the rules run again. */
function merged(
  prev: RuleRun,
  run: RuleRun,
  whole: RuleRun | undefined,
  carried: Finding[],
  e: Edit & { constantsInWindow: ReadonlyMap<string, BindingSite[]> },
): RuleRun {
  const again = new Set(whole?.deps.keys());
  const findings = [...carried, ...(whole?.findings ?? [])];
  for (const f of run.findings) if (!again.has(f.rule) && e.startsInWindow(f.span)) findings.push(f);
  const deps = new Map<string, readonly Dependency[]>();
  for (const [rule, d] of run.deps) deps.set(rule, [...new Set([...(prev.deps.get(rule) ?? []), ...d])]);
  for (const [rule, d] of whole?.deps ?? []) deps.set(rule, d);
  const timings = new Map([...run.timings, ...(whole?.timings ?? [])]);
  const constantNames = new Set([
    ...prev.facts.constantNames,
    ...run.facts.constantNames,
    ...(whole?.facts.constantNames ?? []),
  ]);
  // Half declarations read again over the whole file are complete (the window's may miss a changed name).
  const wholeReadHalves = [...(whole?.deps.values() ?? [])].some((d) => d.includes("halfDecls"));
  const halves = whole && wholeReadHalves ? whole.facts : run.facts;
  // Places binding a constant: as read over the whole file by a run, or carried with the window's now.
  const constantSites = new Map<string, BindingSite[]>();
  for (const name of constantNames)
    constantSites.set(
      name,
      whole?.facts.constantSites.get(name) ??
        run.facts.constantSites.get(name) ??
        sitesAfterEdit(prev.facts.constantSites.get(name) ?? [], e.constantsInWindow.get(name) ?? [], e),
    );
  const facts = {
    ...run.facts,
    fileHalfEntries: halves.fileHalfEntries,
    halfNames: halves.halfNames,
    constantNames,
    constantSites,
    fileWide: whole?.facts.fileWide ?? false,
  };
  return { ...run, findings, timings, deps, facts, wholeFileRules: [...again] };
}

/**
 * Lints only the window around `regions` (offsets in `text` that changed since `prev`, which was linted
 * with the same options) and carries the other findings over; a rule whose whole-file facts the edit
 * changed runs over the whole file again. Undefined when that cannot be exact (or would run every rule
 * over the whole file anyway): the caller then lints the whole file.
 */
export function relint(
  prev: LintState,
  tree: Tree,
  text: string,
  regions: readonly Region[],
  opts: LintOptions,
): RuleRun | undefined {
  if (regions.length === 0 || prev.run.failures.length > 0) return undefined;
  const window = windowAround([tree], regions, text.length);
  const delta = text.length - prev.text.length;
  const oldEnd = window.end - delta;
  // Everything outside the window must be the text the findings were made for.
  if (oldEnd < window.start || prev.text.slice(0, window.start) !== text.slice(0, window.start))
    return undefined;
  if (prev.text.slice(oldEnd) !== text.slice(window.end)) return undefined;
  // A `/*` or `*/` the edit adds or removes can turn text outside the window into a comment or back
  // for the readers of the code text (codeText.ts: `#include <a/*b.h>` opens one there, up to the next
  // `*/`), which the tree's changed ranges do not show: lint the whole file.
  if (
    commentMarks(prev.text.slice(window.start, oldEnd)) !== commentMarks(text.slice(window.start, window.end))
  )
    return undefined;
  const e = editOf(tree, prev.text, text, window, oldEnd);

  const outside = (at: number): boolean => at < window.start || at >= oldEnd;
  const carried = {
    fileHalfEntries: prev.run.facts.fileHalfEntries
      .filter((p) => outside(p.offset))
      .map((p) => (p.offset < window.start ? p : { offset: p.offset + delta, entry: p.entry })),
    halfNames: prev.run.facts.halfNames
      .filter((t) => outside(t.at))
      .map((t) => (t.at < window.start ? t : movedName(t, delta))),
  };
  const fresh = FileIndex.begin(tree, text);
  // The parts of the context key the edit cannot have changed are the last run's.
  reuseContext(fresh, prev.text, prev.run.contextKey, window, oldEnd);
  const contextKey = fileContextKey(fresh);
  const run = runRules(tree, text, opts, { window, carried, contextFrom: fresh });
  if (run.failures.length > 0) return undefined;
  const constants = editedConstants(
    prev.run.facts.constantNames,
    { text: prev.text, sites: prev.run.facts.constantSites },
    fresh,
    e,
  );
  // A finding that read text past its own definition can change with any edit: "fileWide" is always stale.
  const stale = new Set<Dependency>([
    "fileWide",
    ...changedContext(prev.run.contextKey, contextKey),
    ...constants.stale,
  ]);
  if (halfDeclsChanged(prev, run, e, text)) stale.add("halfDecls");
  const windowTexts = [prev.text.slice(window.start, oldEnd), text.slice(window.start, window.end)];
  for (const d of staleUses(allDeps(prev.run, run), windowTexts)) stale.add(d);
  const rerun = readersOf(stale, prev.run, run);
  const kept = carryOver(prev.run.findings, rerun, e);
  const active = opts.rules.filter((r) => opts.severity?.[r.id] !== "off");
  if (active.every((r) => rerun.has(r.id))) return undefined;
  const again = active.filter((r) => rerun.has(r.id));
  const whole =
    again.length > 0 ? runRules(tree, text, { ...opts, rules: again }, { contextFrom: fresh }) : undefined;
  if (whole && whole.failures.length > 0) return undefined;
  return merged(prev.run, run, whole, kept, { ...e, constantsInWindow: constants.inWindow });
}

// The block-comment delimiters of a text, in order: "o" for an opening one, "c" for a closing one.
function commentMarks(text: string): string {
  let out = "";
  for (let i = text.indexOf("*"); i >= 0; i = text.indexOf("*", i + 1)) {
    if (text[i - 1] === "/") out += "o";
    else if (text[i + 1] === "/") out += "c";
  }
  return out;
}

function editOf(tree: Tree, oldText: string, text: string, window: Region, oldEnd: number): Edit {
  const startPoint = pointOf(tree, text, window.start);
  const oldPart = oldText.slice(window.start, oldEnd);
  const newPart = text.slice(window.start, window.end);
  const oldEndPoint = advance(startPoint, oldPart);
  const newEndPoint = advance(startPoint, newPart);
  return {
    window,
    oldEnd,
    move: (span) => moveSpan(span, startPoint, oldEndPoint, newEndPoint),
    startsInWindow: (span) => {
      const s = { row: span.startLine, column: span.startColumn };
      return atOrBefore(startPoint, s) && before(s, newEndPoint);
    },
  };
}
