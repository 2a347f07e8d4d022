// The FP16/BF16-typed names of a file, read from the declarations in the text (halfText.ts): one
// HalfScope per function that declares any, over a file scope.
import type { Node } from "web-tree-sitter";
import type { FileIndex, PlacedHalfEntry } from "./fileIndex";
import { halfName, readHalfTypes } from "./halfText";
import { HalfScope, type HalfEntry, type HalfKind } from "./halfTypes";

export interface FunctionHalfScope {
  fn: Node;
  start: number;
  end: number;
  scope: HalfScope;
}

export interface HalfDecls {
  file: HalfScope;
  /** Initialisers of half-typed variables (`__half h = 0.0f`): name, kind and the value's text range. */
  initializers: { name: string; kind: HalfKind; start: number; end: number }[];
  /** Functions that declare half-typed names, in document order. */
  functions: FunctionHalfScope[];
  /** The scope for an offset: the function's when it declares half names, else the file's. */
  scopeAt(offset: number): HalfScope;
}

export function halfDecls(idx: FileIndex): HalfDecls {
  // The file-scope declarations type names in every function: a whole-file fact.
  idx.reads("halfDecls");
  return idx.shared("halfDecls", () => findHalfDecls(idx));
}

function findHalfDecls(idx: FileIndex): HalfDecls {
  const fileEntries: PlacedHalfEntry[] = [];
  const perFn = new Map<number, { fn: Node; decls: HalfEntry[] }>();
  const inits: HalfDecls["initializers"] = [];
  const tokens = readHalfTypes(idx.text, idx.window.start, idx.window.end);
  // A windowed run read only its window: the names elsewhere come from earlier runs.
  idx.facts.halfNames = [...(idx.carried?.halfNames ?? []), ...tokens.map(halfName)].sort(
    (a, b) => a.at - b.at,
  );
  for (const { read: h } of tokens) {
    if (!h) continue;
    const fn = idx.functionAt(h.at);
    for (const entry of h.entries) {
      if (!fn) {
        fileEntries.push({ offset: h.at, entry });
        continue;
      }
      const e = perFn.get(fn.id) ?? { fn, decls: [] };
      e.decls.push(entry);
      perFn.set(fn.id, e);
    }
    for (const init of h.inits) inits.push({ ...init, kind: h.kind });
  }

  // A windowed run scanned only its window: file-scope declarations elsewhere come from earlier runs.
  const placed = [...(idx.carried?.fileHalfEntries ?? []), ...fileEntries].sort(
    (a, b) => a.offset - b.offset,
  );
  idx.facts.fileHalfEntries = placed;
  const file = new HalfScope(placed.map((p) => p.entry));
  const functions = [...perFn.values()]
    .map(({ fn, decls }) => ({
      fn,
      start: fn.startIndex,
      end: fn.endIndex,
      scope: new HalfScope(decls, file),
    }))
    .sort((a, b) => a.start - b.start);
  const result: HalfDecls = {
    file,
    initializers: inits,
    functions,
    scopeAt(offset) {
      // Functions come from functionAt (outermost definitions), so they do not overlap: binary search.
      let lo = 0;
      let hi = functions.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const f = functions[mid]!;
        if (offset < f.start) hi = mid - 1;
        else if (offset >= f.end) lo = mid + 1;
        else return f.scope;
      }
      return file;
    },
  };
  return result;
}
