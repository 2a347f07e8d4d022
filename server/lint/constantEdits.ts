// Which constants an edit may have re-bound, for a relint (incremental.ts): the places that may bind each
// constant a rule looked up are described with the tree (analysis/constants/constSites.ts) in the last run and
// again now, over the window and the text around it from which a binding's reading reaches into it.
import { bindingAt, describeSite, sitesIn, type BindingSite } from "../analysis/constants/constSites";
import type { Dependency } from "./dependencies";
import type { FileIndex } from "../analysis/source/fileIndex";

/** An edit's window in the new text and where it ended in the old. */
export interface EditWindow {
  window: { start: number; end: number };
  oldEnd: number;
}

/** mayBind looks 12 characters back from a name: a place that close after the window reads into it. */
const LOOK_BACK = 12;

/**
 * The constants whose bindings the edit may have changed (as `const:NAME` facts), and the places in the
 * window that may bind each constant now. `idx` is over the new tree and text.
 */
export function editedConstants(
  names: Iterable<string>,
  before: { text: string; sites: ReadonlyMap<string, BindingSite[]> },
  idx: FileIndex,
  e: EditWindow,
): { stale: Dependency[]; inWindow: Map<string, BindingSite[]> } {
  const stale: Dependency[] = [];
  const inWindow = new Map<string, BindingSite[]>();
  const text = idx.text;
  // From the start of the statement the window starts in: a definition's value may run into it.
  const from = statementStart(text, e.window.start);
  for (const name of names) {
    const after = LOOK_BACK + name.length;
    const oldEnd = e.oldEnd + after;
    const newEnd = e.window.end + after;
    if (!before.text.slice(from, oldEnd).includes(name) && !text.slice(from, newEnd).includes(name)) continue;
    const was = (before.sites.get(name) ?? []).filter((s) => s.at >= from && s.at < oldEnd);
    const now = sitesIn(text, name, from, newEnd).map((at) => ({
      at,
      what: describeSite(bindingAt(idx, at, name)),
    }));
    inWindow.set(
      name,
      now.filter((s) => s.at >= e.window.start && s.at < e.window.end),
    );
    if (was.map((s) => s.what).join("\n") !== now.map((s) => s.what).join("\n")) stale.push(`const:${name}`);
  }
  return { stale, inWindow };
}

/** The last run's places outside the window, moved by the edit, with the window's places now. */
export function sitesAfterEdit(
  last: readonly BindingSite[],
  inWindow: readonly BindingSite[],
  e: EditWindow,
): BindingSite[] {
  const delta = e.window.end - e.oldEnd;
  const kept = last
    .filter((s) => s.at < e.window.start || s.at >= e.oldEnd)
    .map((s) => (s.at < e.window.start ? s : { at: s.at + delta, what: s.what }));
  return [...kept, ...inWindow].sort((a, b) => a.at - b.at);
}

/** Where the statement holding `offset` starts: after the last `;` before it, and not after its logical line's start. */
function statementStart(text: string, offset: number): number {
  let line = text.lastIndexOf("\n", offset - 1) + 1;
  // A preprocessor line continues over lines ending in a backslash.
  while (line > 1 && /\\\s*$/.test(text.slice(text.lastIndexOf("\n", line - 2) + 1, line - 1)))
    line = text.lastIndexOf("\n", line - 2) + 1;
  return Math.min(line, text.lastIndexOf(";", offset - 1) + 1);
}
