// Output formats of `cuda-kernel-dev lint`: text (compiler style), json, SARIF 2.1.0 for code scanning.
import { relative, sep } from "node:path";
import type { Rule, Severity } from "../rules/rule";
import type { FileReport } from "./lintFiles";
import { ruleDocUri } from "./ruleDocs";

export interface JsonFinding {
  /** Relative to the working directory. */
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based, UTF-16 code units. */
  column: number;
  endLine: number;
  endColumn: number;
  rule: string;
  severity: Severity;
  message: string;
}

const rel = (cwd: string, file: string): string => relative(cwd, file).split(sep).join("/");

export function toJsonFindings(reports: readonly FileReport[], cwd: string): JsonFinding[] {
  return reports.flatMap((r) =>
    r.findings.map((f) => ({
      file: rel(cwd, r.file),
      line: f.span.startLine + 1,
      column: f.span.startColumn + 1,
      endLine: f.span.endLine + 1,
      endColumn: f.span.endColumn + 1,
      rule: f.rule,
      severity: f.severity,
      message: f.message,
    })),
  );
}

export function formatText(reports: readonly FileReport[], cwd: string): string {
  const lines = toJsonFindings(reports, cwd).map(
    (f) => `${f.file}:${f.line}:${f.column}: ${f.severity}: ${f.message} [${f.rule}]`,
  );
  const count = (s: Severity): number =>
    reports.reduce((n, r) => n + r.findings.filter((f) => f.severity === s).length, 0);
  const errors = count("error");
  const warnings = count("warning");
  const others = count("information") + count("hint");
  lines.push(
    `${reports.length} file${reports.length === 1 ? "" : "s"}: ${errors} error(s), ${warnings} warning(s), ${others} note(s)`,
  );
  return `${lines.join("\n")}\n`;
}

const SARIF_LEVEL: Record<Severity, "error" | "warning" | "note"> = {
  error: "error",
  warning: "warning",
  information: "note",
  hint: "note",
};

export function toSarif(
  reports: readonly FileReport[],
  rules: readonly Rule[],
  cwd: string,
  version: string,
): object {
  const index = new Map(rules.map((r, i) => [r.id, i]));
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "cuda-kernel-dev",
            version,
            rules: rules.map((r) => {
              const help = ruleDocUri(r.id);
              return {
                id: r.id,
                shortDescription: { text: r.summary },
                defaultConfiguration: { level: SARIF_LEVEL[r.defaultSeverity] },
                ...(help ? { helpUri: help } : {}),
              };
            }),
          },
        },
        columnKind: "utf16CodeUnits",
        originalUriBaseIds: {
          SRCROOT: { uri: `${new URL(`file://${cwd.endsWith("/") ? cwd : `${cwd}/`}`).href}` },
        },
        results: toJsonFindings(reports, cwd).map((f) => ({
          ruleId: f.rule,
          ...(index.has(f.rule) ? { ruleIndex: index.get(f.rule) } : {}),
          level: SARIF_LEVEL[f.severity],
          message: { text: f.message },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: encodeURI(f.file), uriBaseId: "SRCROOT" },
                region: {
                  startLine: f.line,
                  startColumn: f.column,
                  endLine: f.endLine,
                  endColumn: f.endColumn,
                },
              },
            },
          ],
        })),
      },
    ],
  };
}
