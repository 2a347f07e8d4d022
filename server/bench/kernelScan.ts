// A cheap scan of a CUDA source for `__global__` kernels: name, namespace, template and value
// parameters, where the declaration starts, and the `// @bench` comment lines right above it.
// It masks comments and strings first, so it never needs a full parse (CodeLens runs it on each edit).
import type { Span } from "../rules/rule";

export interface KernelParam {
  /** The declared type without the name, e.g. `const __nv_bfloat16* __restrict__`. */
  type: string;
  name: string;
  /** The pointee/base type without qualifiers: `__nv_bfloat16`. */
  baseType: string;
  pointer: boolean;
  isConst: boolean;
  span: Span;
}

export interface TemplateParam {
  /** "type" for `typename T` / `class T`; otherwise the declared value type (`int`, `bool`, ...). */
  kind: "type" | "value";
  valueType: string;
  name: string;
  defaultValue?: string;
}

export interface SpecLine {
  /** 0-based document line. */
  line: number;
  /** The text after `@bench`. */
  text: string;
  /** The column where `text` starts. */
  column: number;
  /** The span of the `@bench` marker itself. */
  markerSpan: Span;
}

export interface KernelInfo {
  name: string;
  /** Enclosing namespaces, outermost first. */
  namespaces: string[];
  externC: boolean;
  template?: TemplateParam[];
  params: KernelParam[];
  /** The kernel's name in the source. */
  nameSpan: Span;
  /** The first line of the declaration (`template <...>` or `__global__`). */
  declLine: number;
  /** The `// @bench` lines of the comment block directly above the declaration. */
  specLines: SpecLine[];
  /** True for a definition (has a body), false for a forward declaration. */
  hasBody: boolean;
}

/** [start, end) offsets of text the scan read around one `__global__`. */
export interface ReadZone {
  start: number;
  end: number;
}

// Comments, string and char literals (quotes kept so `extern "C"` stays recognisable), and
// preprocessor lines with their continuations; one native regex pass keeps big files fast.
const MASKED =
  /\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|(?![\s\S]))|"(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?|^[ \t]*#(?:\\\r?\n|[^\n])*/gm;

/** Replaces comments, string and character literals, and preprocessor lines with spaces (keeps newlines). */
export function maskSource(text: string): string {
  return text.replace(MASKED, (m) => {
    const q = m[0];
    const blank = m.replace(/[^\n]/g, " ");
    return q === '"' || q === "'"
      ? q +
          blank.slice(1, m.endsWith(q) && m.length > 1 ? -1 : undefined) +
          (m.endsWith(q) && m.length > 1 ? q : "")
      : blank;
  });
}

class Positions {
  private readonly starts: number[] = [0];
  constructor(text: string) {
    for (let i = 0; i < text.length; i++) if (text[i] === "\n") this.starts.push(i + 1);
  }
  lineStart(line: number): number {
    return this.starts[line] ?? 0;
  }
  at(offset: number): { line: number; column: number } {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, column: offset - this.starts[lo]! };
  }
  span(from: number, to: number): Span {
    const a = this.at(from);
    const b = this.at(to);
    return { startLine: a.line, startColumn: a.column, endLine: b.line, endColumn: b.column };
  }
}

/** Index just past the bracket matching the one at `open` (`(`, `<`, `{`, `[`), or -1. */
function matchBracket(m: string, open: number): number {
  const pairs: Record<string, string> = { "(": ")", "<": ">", "{": "}", "[": "]" };
  const stack: string[] = [];
  for (let i = open; i < m.length; i++) {
    const c = m[i]!;
    if (c === ">" && m[i - 1] === "-") continue;
    if (c in pairs) {
      // `<` only nests at the start or inside an angle list; elsewhere it may be a comparison.
      if (c !== "<" || i === open || stack[stack.length - 1] === ">") stack.push(pairs[c]!);
    } else if (c === stack[stack.length - 1]) {
      stack.pop();
      if (stack.length === 0) return i + 1;
    }
  }
  return -1;
}

/** Splits on commas not nested in (), <>, [], {}. Returns [start, end) offsets relative to `s`. */
function splitTopLevel(s: string): [number, number][] {
  const parts: [number, number][] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if ("(<[{".includes(c)) depth++;
    else if (")>]}".includes(c)) depth--;
    else if (c === "," && depth === 0) {
      parts.push([start, i]);
      start = i + 1;
    }
  }
  if (s.slice(start).trim() !== "" || parts.length > 0) parts.push([start, s.length]);
  return parts;
}

const QUALIFIERS = /\b(?:const|volatile|__restrict__|__restrict|restrict)\b/g;

function baseTypeOf(type: string): string {
  return type.replace(QUALIFIERS, " ").replace(/[*&]/g, " ").replace(/\s+/g, " ").trim();
}

function parseParams(m: string, text: string, from: number, to: number, pos: Positions): KernelParam[] {
  const params: KernelParam[] = [];
  const inner = m.slice(from, to);
  if (inner.trim() === "" || inner.trim() === "void") return params;
  for (const [a, b] of splitTopLevel(inner)) {
    const raw = inner.slice(a, b);
    const noDefault = raw.split("=")[0]!;
    const nm = /([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*$/.exec(noDefault);
    let name = nm?.[1] ?? "";
    let type = nm ? noDefault.slice(0, nm.index).trim() : noDefault.trim();
    // An unnamed parameter (`float*`) has no trailing identifier after its type.
    if (
      type === "" ||
      /^(?:const|volatile|unsigned|signed)?$/.test(type) ||
      /\b__restrict__$/.test(noDefault.trim())
    ) {
      type = noDefault.trim();
      name = "";
    }
    const isArray = nm ? /\[/.test(noDefault.slice(nm.index)) : false;
    const lead = raw.length - raw.trimStart().length;
    const start = from + a + lead;
    const end = from + a + raw.trimEnd().length;
    params.push({
      type: text.slice(start, start + type.length).trim() || type,
      name,
      baseType: baseTypeOf(type),
      pointer: /\*/.test(type) || isArray,
      isConst: /\bconst\b/.test(type.split("*")[0] ?? ""),
      span: pos.span(start, end),
    });
  }
  return params;
}

function parseTemplateParams(inner: string): TemplateParam[] {
  const out: TemplateParam[] = [];
  for (const [a, b] of splitTopLevel(inner)) {
    const raw = inner.slice(a, b).trim();
    const [decl, ...dflt] = raw.split("=");
    const d = decl!.trim();
    const defaultValue = dflt.length > 0 ? dflt.join("=").trim() : undefined;
    const tm = /^(?:typename|class)\s*(?:\.\.\.)?\s*([A-Za-z_]\w*)?$/.exec(d);
    if (tm)
      out.push({ kind: "type", valueType: "", name: tm[1] ?? "", ...(defaultValue ? { defaultValue } : {}) });
    else {
      const vm = /^(.*?)([A-Za-z_]\w*)$/.exec(d);
      out.push({
        kind: "value",
        valueType: (vm?.[1] ?? d).trim(),
        name: vm?.[2] ?? "",
        ...(defaultValue ? { defaultValue } : {}),
      });
    }
  }
  return out;
}

const SPEC_LINE = /^(\s*\/\/\/?\s*)(@bench)\b(.*)$/;

/** Line `l`'s `@bench` item, or undefined when the line holds none. */
function specLineAt(line: string, l: number): SpecLine | undefined {
  const sm = SPEC_LINE.exec(line);
  if (!sm) return undefined;
  const markerCol = sm[1]!.length;
  const column = markerCol + sm[2]!.length;
  return {
    line: l,
    text: sm[3]!.replace(/\r$/, ""), // a CRLF line's text ends before its \r
    column,
    markerSpan: { startLine: l, startColumn: markerCol, endLine: l, endColumn: column },
  };
}

function specLinesAbove(lines: string[], declLine: number): SpecLine[] {
  const out: SpecLine[] = [];
  for (let l = declLine - 1; l >= 0; l--) {
    const line = lines[l]!;
    if (!/^\s*\/\//.test(line)) break;
    const spec = specLineAt(line, l);
    if (spec) out.unshift(spec);
  }
  return out;
}

/** Every `@bench` line in the document, attached or not (for "not above a kernel" diagnostics). */
export function allSpecLines(text: string): SpecLine[] {
  return text
    .split("\n")
    .map((line, l) => specLineAt(line, l))
    .filter((spec): spec is SpecLine => spec !== undefined);
}

/** Finds the namespaces open at each offset: a sorted list of [start, end, name] blocks. */
function namespaceBlocks(m: string): { start: number; end: number; name: string }[] {
  const blocks: { start: number; end: number; name: string }[] = [];
  const re = /\bnamespace\s+([A-Za-z_][\w:]*)?\s*\{/g;
  for (let mm = re.exec(m); mm; mm = re.exec(m)) {
    const open = mm.index + mm[0].length - 1;
    const end = matchBracket(m, open);
    blocks.push({ start: open, end: end < 0 ? m.length : end, name: mm[1] ?? "" });
  }
  return blocks;
}

/**
 * The kernels declared in `text`. `zones`, when given, receives what was read around each `__global__`:
 * from the end of the code before it (or the comment block directly above, if that starts earlier) to the
 * `{` or `;` after its parameters, or to the end of the text where the declaration could not be read.
 */
export function scanKernels(text: string, zones?: ReadZone[]): KernelInfo[] {
  const m = maskSource(text);
  const pos = new Positions(text);
  const lines = text.split("\n").map((l) => l.replace(/\r$/, ""));
  const nsBlocks = namespaceBlocks(m);
  const kernels: KernelInfo[] = [];
  const re = /\b__global__\b/g;
  for (let g = re.exec(m); g; g = re.exec(m)) {
    // The declaration starts after the previous `;`, `{` or `}` (template headers hold none of them).
    let declStart = g.index;
    while (declStart > 0 && !";{}".includes(m[declStart - 1]!)) declStart--;
    const readFrom = declStart;
    while (/\s/.test(m[declStart] ?? "") && declStart < g.index) declStart++;
    let top = pos.at(declStart).line;
    while (top > 0 && /^\s*\/\//.test(lines[top - 1]!)) top--;
    const zone = { start: Math.min(readFrom, pos.lineStart(top)), end: text.length };
    zones?.push(zone);
    const header = m.slice(declStart, g.index);
    let template: TemplateParam[] | undefined;
    const tm = /\btemplate\s*</.exec(header);
    if (tm) {
      const open = declStart + tm.index + tm[0].length - 1;
      const close = matchBracket(m, open);
      if (close > 0) template = parseTemplateParams(m.slice(open + 1, close - 1));
    }
    const externC = /\bextern\s*"/.test(header);

    // After __global__: skip attributes and specifiers until `name(`.
    let i = g.index + "__global__".length;
    let name = "";
    let nameStart = -1;
    let parenOpen = -1;
    const idRe = /[A-Za-z_][\w:]*/y;
    while (i < m.length) {
      while (/\s/.test(m[i] ?? "")) i++;
      if (m[i] === "(") {
        const close = matchBracket(m, i);
        if (close < 0) break;
        i = close;
        continue;
      }
      if (m[i] === "*" || m[i] === "&") {
        i++;
        continue;
      }
      idRe.lastIndex = i;
      const id = idRe.exec(m);
      if (!id) break;
      const after = id.index + id[0].length;
      let k = after;
      while (/\s/.test(m[k] ?? "")) k++;
      if (
        m[k] === "(" &&
        !/^(?:__launch_bounds__|__attribute__|__declspec|__align__|alignas|__maxnreg__|__cluster_dims__)$/.test(
          id[0],
        )
      ) {
        name = id[0];
        nameStart = id.index;
        parenOpen = k;
        break;
      }
      i = after;
    }
    if (!name || parenOpen < 0) continue;
    const parenClose = matchBracket(m, parenOpen);
    if (parenClose < 0) continue;
    let k = parenClose;
    while (k < m.length && m[k] !== "{" && m[k] !== ";") k++;
    const hasBody = m[k] === "{";

    zone.end = k + 1;

    const qualified = name.split("::");
    const namespaces = nsBlocks
      .filter((b) => b.start < g.index && g.index < b.end && b.name !== "")
      .flatMap((b) => b.name.split("::"));
    const shortName = qualified[qualified.length - 1]!;
    const nameOffset = nameStart + name.length - shortName.length;
    kernels.push({
      name: shortName,
      namespaces: [...namespaces, ...qualified.slice(0, -1)],
      externC,
      ...(template ? { template } : {}),
      params: parseParams(m, text, parenOpen + 1, parenClose - 1, pos),
      nameSpan: pos.span(nameOffset, nameOffset + shortName.length),
      declLine: pos.at(declStart).line,
      specLines: specLinesAbove(lines, pos.at(declStart).line),
      hasBody,
    });
  }
  return kernels;
}
