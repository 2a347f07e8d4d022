// Whether a launch (or any call) is checked: a launch check follows it in its own function, or every call
// of that function in the file is followed by one in its caller, looking up to MAX_DEPTH callers up
// (callGraph.ts). A function called nowhere in the file is not checked by this analysis: whether its
// callers elsewhere check is the rule's guess (missing-launch-check.ts checksElsewhere).
//
// An answer other than a local check reads the rest of the file only where names are written: the check
// names (the file's own check functions are judged from their uses: ownChecks.ts) and the names of the
// functions whose callers were looked at. Each is recorded as a dependency on that name's uses
// (lint/dependencies.ts usesOf); past MAX_WATCHED check names, as one on the whole file. Cannot see:
// callers in other files, calls it cannot resolve (callGraph.ts), or whether the check lies on every path
// after the call.
import type { Node } from "web-tree-sitter";
import type { FileIndex } from "../source/fileIndex";
import { callGraph, type CallGraph } from "../callgraph/callGraph";
import { CheckFinder, checkedAfter } from "./checkFinder";
import { fileLaunchChecks } from "./launchChecks";
import { usesOf } from "../../lint/dependencies";

/** How many callers up a check may stand (the caller, its caller, and one more). */
export const MAX_DEPTH = 3;

/** Above this many check names (a long configured list), an answer depends on the whole file instead. */
const MAX_WATCHED = 64;

export class LaunchChecks {
  private readonly local: CheckFinder;
  private wide: CheckFinder | undefined;
  private graph: CallGraph | undefined;

  /** `known`: the built-in, configured and project-header checks, and the file's check macros (declEnv.ts). */
  constructor(
    private readonly idx: FileIndex,
    private readonly known: ReadonlySet<string>,
  ) {
    this.local = new CheckFinder(idx, [...known]);
  }

  /**
   * Every check name, the file's own check functions included (read on demand: they depend on where the
   * names are written, recorded as such).
   */
  get names(): ReadonlySet<string> {
    const names = fileLaunchChecks(this.idx, this.known);
    if (names.size > MAX_WATCHED) this.idx.readsWholeFile();
    else for (const n of names) this.idx.reads(usesOf(n));
    return names;
  }

  /** Whether a check follows the call `node` (ending at `end`) here, or after every call of its function. */
  checked(node: Node, end = node.endIndex): boolean {
    if (checkedAfter(this.idx, node, this.local, end)) return true;
    // From here on the answer depends on the file's other functions.
    const names = this.names;
    this.wide ??= names.size === this.known.size ? this.local : new CheckFinder(this.idx, [...names]);
    if (this.wide !== this.local && checkedAfter(this.idx, node, this.wide, end)) return true;
    this.graph ??= callGraph(this.idx);
    return this.checkedByCallers(node, 1);
  }

  /** Every call of the unit holding `node` is checked after it, or by its own callers (to MAX_DEPTH). */
  private checkedByCallers(node: Node, depth: number): boolean {
    const unit = this.graph!.unitAt(node);
    if (unit) this.idx.reads(usesOf(unit.name));
    const calls = unit ? this.graph!.callsOf(unit) : [];
    if (calls.length === 0) return false;
    return calls.every(
      ({ call }) =>
        checkedAfter(this.idx, call, this.wide!, call.endIndex, true) ||
        (depth < MAX_DEPTH && this.checkedByCallers(call, depth + 1)),
    );
  }
}
