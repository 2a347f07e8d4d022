// Runs rules over a parsed tree, then applies suppression comments and severity overrides.
import type { Node, Tree } from "web-tree-sitter";
import type { Finding, Fix, LintContext, Rule, RuleOptions, Severity, Span } from "../rules/rule";
import { isSuppressed, parseSuppressions } from "./suppressions";

/** A severity override: a rule's level, or "off" to disable it. */
export type SeverityOverride = Severity | "off";

export interface LintOptions {
  /** The document's path or URI, passed to rules for messages. */
  fileName: string;
  /** Target SM versions, e.g. [75, 90]. Sorted and de-duplicated here; must not be empty. */
  targets: readonly number[];
  rules: readonly Rule[];
  ruleOptions?: Partial<RuleOptions>;
  severity?: Readonly<Record<string, SeverityOverride>>;
}

/** A rule that threw: its findings for this document are dropped, the others still run. */
export interface RuleFailure {
  rule: string;
  message: string;
}

export interface LintResult {
  findings: Finding[];
  failures: RuleFailure[];
  /** Milliseconds each rule took, for the server's slow-rule guard and the benchmarks. */
  timings: Map<string, number>;
}

export function spanOf(node: Node): Span {
  return {
    startLine: node.startPosition.row,
    startColumn: node.startPosition.column,
    endLine: node.endPosition.row,
    endColumn: node.endPosition.column,
  };
}

const ZERO: Span = { startLine: 0, startColumn: 0, endLine: 0, endColumn: 0 };

export function compareSpans(a: Span, b: Span): number {
  return (
    a.startLine - b.startLine ||
    a.startColumn - b.startColumn ||
    a.endLine - b.endLine ||
    a.endColumn - b.endColumn
  );
}

export function lintTree(tree: Tree, text: string, opts: LintOptions): LintResult {
  if (opts.targets.length === 0) throw new Error("lintTree: no target architectures given");
  const targets = [...new Set(opts.targets)].sort((a, b) => a - b);
  const options: RuleOptions = { launchCheckMacros: opts.ruleOptions?.launchCheckMacros ?? [] };
  const findings: Finding[] = [];
  const failures: RuleFailure[] = [];
  const timings = new Map<string, number>();
  for (const rule of opts.rules) {
    const override = opts.severity?.[rule.id];
    if (override === "off") continue;
    const severity = override ?? rule.defaultSeverity;
    const own: Finding[] = [];
    const ctx: LintContext = {
      tree,
      text,
      fileName: opts.fileName,
      targets,
      options,
      report(f: { node?: Node; span?: Span; message: string; fixes?: Fix[] }) {
        const span = f.span ?? (f.node ? spanOf(f.node) : ZERO);
        own.push({ rule: rule.id, severity, message: f.message, span, fixes: f.fixes ?? [] });
      },
    };
    const started = performance.now();
    try {
      rule.check(ctx);
      findings.push(...own);
    } catch (err) {
      failures.push({
        rule: rule.id,
        message: err instanceof Error ? (err.stack ?? err.message) : String(err),
      });
    }
    timings.set(rule.id, performance.now() - started);
  }
  const suppressions = parseSuppressions(text);
  return {
    findings: findings
      .filter((f) => !isSuppressed(suppressions, f))
      .sort((a, b) => compareSpans(a.span, b.span)),
    failures,
    timings,
  };
}
