// The FP16/BF16-typed names of a file, read from the declarations in the text (asking the tree for each
// declarator costs more than reading it): one HalfScope per function that declares any, over a file scope.
import type { Node } from "web-tree-sitter";
import type { FileIndex, PlacedHalfEntry } from "./fileIndex";
import { HalfScope, halfKindOfType, parseDeclarators, type HalfEntry, type HalfKind } from "./halfTypes";

const HALF_TYPE = /\b(__half2?|half2?|__nv_bfloat162?|nv_bfloat162?)\b/g;

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

/** `auto* x = reinterpret_cast<const` just before a type name: the cast names the declared type (group 1: x). */
const AUTO_CAST_DECL =
  /\bauto\b[\s*&]*(?:(?:const|__restrict__|volatile)\b[\s*&]*)*([A-Za-z_]\w*)\s*=\s*(?:reinterpret_cast|static_cast)\s*<\s*(?:(?:const|volatile)\s+)*$/;

export function halfDecls(idx: FileIndex): HalfDecls {
  return idx.shared("halfDecls", () => findHalfDecls(idx));
}

/** Qualifiers that may stand between the start of a declaration and its type. */
const QUALIFIER_WORDS: ReadonlySet<string> = new Set([
  "const",
  "volatile",
  "static",
  "extern",
  "constexpr",
  "__shared__",
  "__constant__",
  "__device__",
  "__restrict__",
  "register",
  "inline",
  "__forceinline__",
]);

/** The run of qualifier words (and spaces) at the end of `prefix`. */
function trailingQualifiers(prefix: string): string {
  let i = prefix.length;
  for (;;) {
    let j = i;
    while (j > 0 && /\s/.test(prefix[j - 1]!)) j--;
    let k = j;
    while (k > 0 && /\w/.test(prefix[k - 1]!)) k--;
    if (k === j || !QUALIFIER_WORDS.has(prefix.slice(k, j))) return prefix.slice(i);
    i = k;
  }
}

/** A half declaration read from the text: its entries, where its initialisers are, and its scope. */
interface TextDecl {
  entries: HalfEntry[];
  /** [start, end) of each `= value` initialiser, for the conversion rule. */
  inits: { name: string; start: number; end: number }[];
}

/**
 * Reads `const __half* __restrict__ x` (a parameter) or `__half a = b, *p;` (a declaration) after a half
 * type name at [start, end), from the text alone. Undefined when the type is not a declaration's (casts,
 * template arguments, return types).
 */
function readDeclaration(idx: FileIndex, kind: HalfKind, start: number, end: number): TextDecl | undefined {
  const text = idx.text;
  const prefix = text.slice(Math.max(0, start - 80), start);
  const quals = trailingQualifiers(prefix);
  const before = prefix.slice(0, prefix.length - quals.length).trimEnd();
  const prev = before[before.length - 1];
  const isParam = prev === "(" || prev === ",";
  // A statement starts after `;`, `{`, `}`, a label or template header, or at the start of a line (a type
  // cannot continue an expression on a new line; `__half(x)` casts were excluded by the caller).
  const rawBefore = prefix.slice(0, prefix.length - quals.length);
  const atLineStart = /(^|\n)[ \t]*$/.test(rawBefore);
  const isDecl = !isParam && (prev === undefined || ";{}:>".includes(prev) || atLineStart);
  if (!isParam && !isDecl) return undefined;
  // `__half f(...)` and `__half f<T>(...)` are functions returning __half, not variables (checked before
  // looking for the end of the statement, which for a definition lies past its body).
  if (!isParam && /^\s*[A-Za-z_]\w*\s*(?:<[^;{}()<>]*>\s*)?\(/.test(text.slice(end, end + 200)))
    return undefined;
  // The declarators run to the end of the parameter (`,` or `)` at depth 0) or of the statement (`;`).
  let depth = 0;
  let i = end;
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") {
      if (depth === 0) break;
      depth--;
    } else if (depth === 0 && (c === ";" || (isParam && c === ","))) break;
  }
  const declText = text.slice(end, i);
  const shared = /\b__shared__\b/.test(quals);
  const entries: HalfEntry[] = [];
  const inits: TextDecl["inits"] = [];
  for (const d of parseDeclarators(declText)) {
    entries.push({ name: d.name, type: { kind, indirection: d.indirection, shared, array: d.array } });
  }
  if (!isParam && declText.includes("=")) {
    // initialisers: `name = value` up to the next top-level comma
    const re = /([A-Za-z_]\w*)\s*=(?!=)/g;
    for (let m = re.exec(declText); m; m = re.exec(declText)) {
      let d = 0;
      let j = m.index + m[0].length;
      for (; j < declText.length; j++) {
        const c = declText[j]!;
        if (c === "(" || c === "[" || c === "{") d++;
        else if (c === ")" || c === "]" || c === "}") d--;
        else if (c === "," && d === 0) break;
      }
      const vStart = end + m.index + m[0].length;
      inits.push({ name: m[1]!, start: vStart, end: end + j });
      re.lastIndex = j;
    }
  }
  return { entries, inits };
}

function findHalfDecls(idx: FileIndex): HalfDecls {
  const fileEntries: PlacedHalfEntry[] = [];
  const perFn = new Map<number, { fn: Node; decls: HalfEntry[] }>();
  const inits: HalfDecls["initializers"] = [];
  let at = 0;
  const add = (fn: Node | undefined, item: HalfEntry): void => {
    if (!fn) {
      fileEntries.push({ offset: at, entry: item });
      return;
    }
    const e = perFn.get(fn.id) ?? { fn, decls: [] };
    e.decls.push(item);
    perFn.set(fn.id, e);
  };
  for (const m of idx.scan(HALF_TYPE)) {
    const end = m.index + m[0].length;
    // A declared type is followed by `*`, `&` or a name; `<__half, 256>` and `__half(x)` are not.
    if (!/^\s*([*&A-Za-z_])/.test(idx.text.slice(end, end + 40))) continue;
    const kind = halfKindOfType(m[0])!;
    at = m.index;
    const fn = idx.functionAt(m.index);
    const read = readDeclaration(idx, kind, m.index, end);
    if (read) {
      for (const e of read.entries) add(fn, e);
      for (const init of read.inits) inits.push({ ...init, kind });
      continue;
    }
    // `auto* p = reinterpret_cast<const __half2*>(…)`: the cast names the type; read name and `*`s from the text.
    const autoDecl = AUTO_CAST_DECL.exec(idx.text.slice(Math.max(0, m.index - 120), m.index));
    const stars = autoDecl ? /^\s*((?:\*\s*(?:const\s*)?)*)>/.exec(idx.text.slice(end, end + 40)) : null;
    if (autoDecl && stars) {
      const indirection = (stars[1]!.match(/\*/g) ?? []).length;
      add(fn, { name: autoDecl[1]!, type: { kind, indirection, shared: false, array: false } });
    }
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
