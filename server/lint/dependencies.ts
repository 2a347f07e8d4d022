// Which whole-file facts each rule's findings depend on, beyond the text of the definitions they are in:
// the constants a rule looked up, the file-scope FP16/BF16 declarations, the parts of the whole-file
// context (server/lint/fileContext.ts), the places a name is written (`uses:`), or text anywhere after a
// finding outside any function. A
// relint (server/lint/incremental.ts) runs a rule over the whole file again only when one of its facts
// changed; the other rules keep their findings outside the edited window.
//
// Rules read these facts through shared helpers (Constants, halfDecls, hasBf16Guard...), often through a
// value another rule computed first (the launch list, the block sizes): each shared value remembers the
// facts read while it was made, and passes them on to every rule that uses it.

import { wordOffsets } from "../analysis/source/textScans";

/** A whole-file fact: `const:NAME`, `halfDecls`, `context:…`, `uses:NAME` or `fileWide`. */
export type Dependency = string;

/**
 * The fact "where NAME is written, and the definitions around those places": findings that read the
 * callers of a function or the uses of a check name anywhere in the file (launchChecked.ts). Changed by
 * an edit only where NAME is written in the edited window, before or after the edit: the window is whole
 * top-level items, so a definition around a use outside it is unchanged.
 */
export function usesOf(name: string): Dependency {
  return `uses:${name}`;
}

/** The `uses:` facts among `deps` whose name is written as a whole word in one of `texts`. */
export function staleUses(deps: Iterable<Dependency>, texts: readonly string[]): Dependency[] {
  const out: Dependency[] = [];
  for (const d of new Set(deps))
    if (d.startsWith("uses:") && texts.some((t) => wordOffsets(t, d.slice(5), 0, t.length).length > 0))
      out.push(d);
  return out;
}

export class DependencyRecorder {
  /** The running rule's set, then one per shared value being made inside it. */
  private readonly frames: Set<Dependency>[] = [];
  private readonly ofShared = new Map<string, Set<Dependency>>();

  /** Runs one rule's check and returns the facts it read. */
  record(check: () => void): Set<Dependency> {
    const deps = new Set<Dependency>();
    this.frames.push(deps);
    try {
      check();
    } finally {
      this.frames.pop();
    }
    return deps;
  }

  /** The running rule (and any shared value being made for it) read `fact`. */
  reads(fact: Dependency): void {
    for (const f of this.frames) f.add(fact);
  }

  /** Makes a shared value, recording what it read, or passes on what it read when it was made. */
  shared<T>(key: string, memo: Map<string, unknown>, make: () => T): T {
    if (!memo.has(key)) {
      const deps = new Set<Dependency>();
      this.frames.push(deps);
      try {
        memo.set(key, make());
      } finally {
        this.frames.pop();
      }
      this.ofShared.set(key, deps);
    }
    for (const d of this.ofShared.get(key) ?? []) this.reads(d);
    return memo.get(key) as T;
  }
}
