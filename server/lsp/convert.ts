// Between the editor-free core and LSP: spans to ranges, findings to diagnostics, URIs to paths.
import { fileURLToPath } from "node:url";
import { DiagnosticSeverity, type Diagnostic, type Range } from "vscode-languageserver/node";
import { ruleDocUri } from "../lint/ruleDocs";
import type { Finding, Severity, Span } from "../rules/rule";

/** The `source` of every diagnostic, and the server's name in `initialize`. */
export const SOURCE = "cuda-kernel-dev";

const SEVERITY: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

export const toRange = (s: Span): Range => ({
  start: { line: s.startLine, character: s.startColumn },
  end: { line: s.endLine, character: s.endColumn },
});

export const sameRange = (a: Range, b: Range): boolean =>
  a.start.line === b.start.line &&
  a.start.character === b.start.character &&
  a.end.line === b.end.line &&
  a.end.character === b.end.character;

export const overlaps = (a: Range, b: Range): boolean =>
  !(
    a.end.line < b.start.line ||
    (a.end.line === b.start.line && a.end.character < b.start.character) ||
    b.end.line < a.start.line ||
    (b.end.line === a.start.line && b.end.character < a.start.character)
  );

/** The local path of a file: URI; undefined for untitled and other schemes. */
export function filePath(uri: string): string | undefined {
  try {
    return uri.startsWith("file:") ? fileURLToPath(uri) : undefined;
  } catch {
    return undefined;
  }
}

export function toDiagnostic(f: Finding): Diagnostic {
  const href = ruleDocUri(f.rule);
  return {
    range: toRange(f.span),
    severity: SEVERITY[f.severity],
    code: f.rule,
    source: SOURCE,
    message: f.message,
    ...(href ? { codeDescription: { href } } : {}),
  };
}
