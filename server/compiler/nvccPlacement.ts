// Where each parsed nvcc diagnostic goes in the editor: absolute file, 0-based range. ptxas messages
// name a kernel, not a line: they go on the kernel's definition. An error inside an included header
// goes on the header AND, so it is seen from the file being compiled, on the line of that file that
// led to it (the instantiation or the #include).
import { isAbsolute, resolve, basename } from "node:path";
import { demangle } from "./demangle";
import type { NvccDiagnostic, NvccSeverity } from "./nvccDiagnostics";

export interface Range {
  startLine: number;
  startColumn: number;
  endLine: number;
  endColumn: number;
}

export interface PlacedDiagnostic {
  file: string;
  range: Range;
  severity: NvccSeverity;
  message: string;
  code?: string;
  source: NvccDiagnostic["source"];
  related: { file: string; range: Range; message: string }[];
}

export interface PlacementContext {
  /** nvcc's working directory: relative paths in its output are relative to it. */
  cwd: string;
  /** The file that was compiled (absolute). */
  mainFile: string;
  /** Text of a file (absolute path), or undefined when it cannot be read. */
  readText(file: string): string | undefined;
  /** The architecture of this compile, added to ptxas messages ("sm_75: ..."). */
  arch?: string;
}

function lineRange(text: string | undefined, line0: number, column?: number): Range {
  const lineText = text?.split(/\r?\n/)[line0] ?? "";
  const firstNonBlank = lineText.search(/\S/);
  let start = column ?? (firstNonBlank < 0 ? 0 : firstNonBlank);
  if (start > lineText.length) start = firstNonBlank < 0 ? 0 : firstNonBlank;
  // From the column to the end of the token there (or the end of the line without a column).
  let end = lineText.length;
  if (column !== undefined) {
    const token = /^[\w$]+|^\S/.exec(lineText.slice(start));
    end = start + (token ? token[0].length : 0);
  }
  return { startLine: line0, startColumn: start, endLine: line0, endColumn: Math.max(end, start) };
}

/**
 * The column the caret points at, in the real source line. nvcc prints the line after macro
 * expansion (`__device__` becomes `__attribute__((device))`), so the caret's index is only trusted
 * when the printed line is the source line; otherwise the token under the caret is looked up.
 */
export function snippetColumn(
  sourceLine: string | undefined,
  snippet: { text: string; caret: number },
): number | undefined {
  if (sourceLine === undefined) return undefined;
  const printed = snippet.text.trim();
  const lead = snippet.text.length - snippet.text.trimStart().length;
  const at = sourceLine.indexOf(printed);
  if (printed && at >= 0) return at + Math.max(0, snippet.caret - lead);
  const token = /^[\w$]+|^\S/.exec(snippet.text.slice(snippet.caret))?.[0];
  if (!token) return undefined;
  const first = sourceLine.indexOf(token);
  return first >= 0 && first === sourceLine.lastIndexOf(token) ? first : undefined;
}

/** The 0-based line where `__global__ ... name(` is defined, or undefined. */
export function findKernelLine(text: string, symbol: string): number | undefined {
  const name = demangle(symbol)?.name ?? symbol;
  const base = name.replace(/<.*>$/, "").split("::").pop() ?? name;
  const escaped = base.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const def = new RegExp(`__global__[^;{}]*?\\b${escaped}\\s*\\(`, "g");
  const m = def.exec(text) ?? new RegExp(`\\b${escaped}\\s*\\(`).exec(text);
  if (!m) return undefined;
  const at = m.index + m[0].lastIndexOf(base);
  return text.slice(0, at).split("\n").length - 1;
}

function findIncludeLine(text: string, header: string): number | undefined {
  const lines = text.split(/\r?\n/);
  const name = basename(header);
  const i = lines.findIndex((l) => /^\s*#\s*include\s*[<"]/.test(l) && l.includes(name));
  return i < 0 ? undefined : i;
}

export function placeDiagnostics(diagnostics: NvccDiagnostic[], ctx: PlacementContext): PlacedDiagnostic[] {
  const abs = (f: string): string => (isAbsolute(f) ? f : resolve(ctx.cwd, f));
  const cache = new Map<string, string | undefined>();
  const text = (f: string): string | undefined => {
    if (!cache.has(f)) cache.set(f, ctx.readText(f));
    return cache.get(f);
  };
  const placed: PlacedDiagnostic[] = [];
  for (const d of diagnostics) {
    if (d.severity === "note" && d.file === undefined) continue;
    let file = d.file !== undefined ? abs(d.file) : ctx.mainFile;
    let range: Range;
    let message = d.message;
    if (d.file !== undefined && d.line !== undefined) {
      const t = text(file);
      range = lineRange(
        t,
        d.line - 1,
        d.snippet ? snippetColumn(t?.split(/\r?\n/)[d.line - 1], d.snippet) : d.column,
      );
    } else if (d.symbol !== undefined) {
      const mainText = text(ctx.mainFile);
      const line = mainText === undefined ? undefined : findKernelLine(mainText, d.symbol);
      file = ctx.mainFile;
      range = lineRange(mainText, line ?? 0);
      if (ctx.arch) message = `${ctx.arch}: ${message}`;
    } else {
      file = ctx.mainFile;
      range = lineRange(text(ctx.mainFile), 0);
      if (ctx.arch && d.source !== "driver") message = `${ctx.arch}: ${message}`;
    }
    const related = d.related.map((r) => {
      const f = abs(r.file);
      return { file: f, range: lineRange(text(f), r.line - 1), message: r.message };
    });
    const p: PlacedDiagnostic = { file, range, severity: d.severity, message, source: d.source, related };
    if (d.code !== undefined) p.code = d.code;
    placed.push(p);

    // Seen from the compiled file: a copy on the line there that led into the header.
    if (file !== ctx.mainFile && (d.severity === "error" || d.severity === "warning")) {
      const here = related.find((r) => r.file === ctx.mainFile);
      const mainText = text(ctx.mainFile);
      const line =
        here?.range.startLine ?? (mainText === undefined ? undefined : findIncludeLine(mainText, file));
      const where = `${basename(file)}(${range.startLine + 1})`;
      const mirror: PlacedDiagnostic = {
        file: ctx.mainFile,
        range: lineRange(mainText, line ?? 0),
        severity: d.severity,
        message: `${where}: ${d.message}`,
        source: d.source,
        related: [{ file, range, message: d.message }],
      };
      if (d.code !== undefined) mirror.code = d.code;
      placed.push(mirror);
    }
  }
  return placed;
}
