// Output formats of `cuda-kernel-dev lint`: text (compiler style), json, SARIF 2.1.0 for code scanning.
import { relative, sep } from "node:path";
import type { Rule, Severity } from "../rules/rule";
import type { FileReport, WalkSkip } from "./lintFiles";
import { ruleDocText } from "./ruleDocs";

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

/**
 * Something the run was asked to lint and did not, wholly or in part: a file that could not be read
 * (permissions, deleted during the run), one past the parse time limit, a folder the walk could not
 * read, a rule that failed on a file (its findings are missing). Any of these makes the run incomplete:
 * the summary says so, SARIF's invocation is not successful, and the CLI exits 5.
 */
export interface NotLinted {
  /** Absolute path of the file or folder. */
  path: string;
  reason: string;
  /** The rule that failed, when one did. */
  rule?: string;
}

/** The pseudo-rule of a NotLinted entry in the JSON output. */
export const NOT_LINTED_RULE = "not-linted";

/** Everything the run could not lint: walk skips that matter, skipped files, failed rules. */
export function notLinted(reports: readonly FileReport[], walk: readonly WalkSkip[] = []): NotLinted[] {
  const out: NotLinted[] = walk.filter((w) => w.incomplete).map((w) => ({ path: w.path, reason: w.reason }));
  for (const r of reports) {
    if (r.skipped) out.push({ path: r.file, reason: r.skipped });
    for (const f of r.ruleFailures)
      out.push({ path: r.file, reason: `rule ${f.rule} failed: ${f.message}`, rule: f.rule });
  }
  return out;
}

/** The findings; then each NotLinted entry as an error of the pseudo-rule "not-linted" at 1:1 of its path. */
export function toJsonFindings(
  reports: readonly FileReport[],
  cwd: string,
  missed: readonly NotLinted[] = [],
): JsonFinding[] {
  const notes = missed.map((m) => ({
    file: rel(cwd, m.path),
    line: 1,
    column: 1,
    endLine: 1,
    endColumn: 1,
    rule: NOT_LINTED_RULE,
    severity: "error" as const,
    message: `not linted: ${m.reason}`,
  }));
  return [...findingsOf(reports, cwd), ...notes];
}

function findingsOf(reports: readonly FileReport[], cwd: string): JsonFinding[] {
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

export function formatText(
  reports: readonly FileReport[],
  cwd: string,
  missed: readonly NotLinted[] = [],
): string {
  const lines = toJsonFindings(reports, cwd, missed).map(
    (f) => `${f.file}:${f.line}:${f.column}: ${f.severity}: ${f.message} [${f.rule}]`,
  );
  const count = (s: Severity): number =>
    reports.reduce((n, r) => n + r.findings.filter((f) => f.severity === s).length, 0);
  const errors = count("error");
  const warnings = count("warning");
  const others = count("information") + count("hint");
  const incomplete =
    missed.length === 0
      ? ""
      : `; INCOMPLETE: ${missed.length} file(s) or folder(s) not (wholly) linted, listed above as [${NOT_LINTED_RULE}]`;
  lines.push(
    `${reports.length} file${reports.length === 1 ? "" : "s"}: ${errors} error(s), ${warnings} warning(s), ${others} note(s)${incomplete}`,
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
  missed: readonly NotLinted[] = [],
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
            // The rule's doc travels in the log (help.markdown): a file:// path of this machine means
            // nothing where the log is read (a code-scanning page).
            rules: rules.map((r) => {
              const doc = ruleDocText(r.id);
              return {
                id: r.id,
                shortDescription: { text: r.summary },
                defaultConfiguration: { level: SARIF_LEVEL[r.defaultSeverity] },
                ...(doc ? { help: { text: r.summary, markdown: doc } } : {}),
              };
            }),
          },
        },
        columnKind: "utf16CodeUnits",
        originalUriBaseIds: {
          SRCROOT: { uri: `${new URL(`file://${cwd.endsWith("/") ? cwd : `${cwd}/`}`).href}` },
        },
        invocations: [sarifInvocation(missed, cwd)],
        results: findingsOf(reports, cwd).map((f) => ({
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

/** SARIF's account of the run: not successful, with one notification per path, when anything was not linted. */
function sarifInvocation(missed: readonly NotLinted[], cwd: string): object {
  return {
    executionSuccessful: missed.length === 0,
    toolExecutionNotifications: missed.map((m) => ({
      level: "error",
      message: { text: `not linted: ${m.reason}` },
      locations: [
        {
          physicalLocation: { artifactLocation: { uri: encodeURI(rel(cwd, m.path)), uriBaseId: "SRCROOT" } },
        },
      ],
      ...(m.rule ? { associatedRule: { id: m.rule } } : {}),
    })),
  };
}
