// Runs rules over a parsed tree, then applies suppression comments and severity overrides.
import { SEVERITY_OF, type Basis } from "../rules/severity";
import type { Node, Tree } from "web-tree-sitter";
import type { BuildFacts, Finding, Fix, LintContext, Rule, RuleOptions, Severity, Span } from "../rules/rule";
import { inDeadCode } from "../analysis/preprocessor/archGuard";
import { lintMacroEnv } from "../analysis/preprocessor/macroEnv";
import { HIP_MACROS } from "./buildContext";
import type { Dependency } from "./dependencies";
import { CONTEXT_VALUES, fileContextKey } from "./fileContext";
import { FileIndex, type Carried, type FileFacts, type LintWindow } from "../analysis/source/fileIndex";
import { spanOf } from "../analysis/source/nodes";
import { errorMessage } from "../util/errorMessage";
import { isSuppressed, parseSuppressions } from "./suppressions";
import { isTestSource } from "./testSources";

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
  /** The file's build context (server/lint/buildContext.ts); STANDALONE_BUILD when the caller has none. */
  build?: BuildFacts;
}

/**
 * A CUDA file with no build context (tests, one-off use): targets as given, HIP's macros undefined, and
 * the strictest half-precision switches a build may set, under which the fixtures are compiled
 * (test/unit/rules/nvcc.test.ts).
 */
export const STANDALONE_BUILD: BuildFacts = {
  targets: "declared",
  defines: new Map(
    [
      "__CUDA_NO_HALF_OPERATORS__",
      "__CUDA_NO_HALF2_OPERATORS__",
      "__CUDA_NO_BFLOAT16_OPERATORS__",
      "__CUDA_NO_BFLOAT162_OPERATORS__",
      "__CUDA_NO_HALF_CONVERSIONS__",
      "__CUDA_NO_BFLOAT16_CONVERSIONS__",
    ].map((m) => [m, "1"]),
  ),
  undefines: new Set(HIP_MACROS),
  definesKnown: true,
};

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

/** The rules' raw output (before suppression comments) and what they learned about the file. */
export interface RuleRun extends LintResult {
  facts: FileFacts;
  /** Whole-file facts findings anywhere depend on (see lint/fileContext.ts). */
  contextKey: string;
  /** Per rule id, the whole-file facts its findings depend on (see lint/dependencies.ts). */
  deps: Map<string, readonly Dependency[]>;
  /** In a relint: the rules run over the whole file again because a fact they read changed. */
  wholeFileRules?: string[];
}

/** A run over part of the file: the window and what earlier runs found outside it. */
export interface WindowScope {
  window: LintWindow;
  carried: Carried;
}

/** How far a run goes: the whole file unless a window is given. */
export interface RunScope extends Partial<WindowScope> {
  /** An index over the same tree and text whose whole-file context values the run can take over. */
  contextFrom?: FileIndex;
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

/** Lints the whole tree: every rule, then suppression comments; findings in document order. */
export function lintTree(tree: Tree, text: string, opts: LintOptions): LintResult {
  const run = runRules(tree, text, opts);
  return {
    findings: finishFindings(tree, text, opts, run.findings),
    failures: run.failures,
    timings: run.timings,
  };
}

/** The rules that do not run on a file without declared targets. */
export const archDependentRules = (rules: readonly Rule[]): string[] =>
  rules.filter((r) => r.archDependent).map((r) => r.id);

/** The one note a file gets when no targets are declared for it (none when they are). */
function targetsNote(opts: LintOptions): Finding[] {
  const build = opts.build ?? STANDALONE_BUILD;
  if (build.targets === "declared") return [];
  const on = opts.rules.filter((r) => opts.severity?.[r.id] !== "off");
  const off = [
    ...archDependentRules(on),
    ...on.flatMap((r) => (r.archDependentPart ? [`${r.id}'s ${r.archDependentPart}`] : [])),
  ];
  const how =
    "declare them with the cudaKernelDev.targets setting (or --arch), cuda-capabilities in build.toml, or CMAKE_CUDA_ARCHITECTURES";
  const message =
    build.targets === "gpu"
      ? `No target architectures are declared for this file: assuming this machine's GPU (${opts.targets.map((t) => `sm_${t}`).join(", ")}); ${how}.`
      : `No target architectures are declared for this file, so ${off.length > 1 ? `${off.slice(0, -1).join(", ")} and ${off[off.length - 1]!}` : (off[0] ?? "no rule")} ${off.length === 1 ? "is" : "are"} off; ${how}.`;
  return [{ rule: "targets", severity: "information", message, span: ZERO, fixes: [] }];
}

/**
 * The findings as shown: those in code no compilation sees (`#if 0`, `#ifdef USE_ROCM` in a CUDA build,
 * `#if DEBUG` where the file defines DEBUG as 0: archGuard.ts inDeadCode) and suppressed ones dropped, in document order, with the file's note about its targets.
 */
export function finishFindings(
  tree: Tree,
  text: string,
  opts: LintOptions,
  findings: readonly Finding[],
): Finding[] {
  const build = opts.build ?? STANDALONE_BUILD;
  let live = findings;
  if (findings.length > 0) {
    const points = findings.map((f) => ({ row: f.span.startLine, column: f.span.startColumn }));
    const targets = build.targets === "none" ? undefined : opts.targets;
    const headers = {
      fileName: opts.fileName,
      headerRoot: opts.ruleOptions?.headerRoot,
      includeDirs: build.includeDirs,
    };
    const dead = inDeadCode(tree, text, targets, lintMacroEnv(build, opts.targets), points, headers);
    live = findings.filter((_, i) => !dead[i]);
  }
  return [...targetsNote(opts), ...applySuppressions(live, text)];
}

/** Document order; findings on the same span by rule id, then message, so any run lists them alike. */
export function compareFindings(a: Finding, b: Finding): number {
  return (
    compareSpans(a.span, b.span) ||
    (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0) ||
    (a.message < b.message ? -1 : a.message > b.message ? 1 : 0)
  );
}

/** Drops suppressed findings and sorts the rest into document order. */
export function applySuppressions(findings: readonly Finding[], text: string): Finding[] {
  const suppressions = parseSuppressions(text);
  return findings.filter((f) => !isSuppressed(suppressions, f)).sort(compareFindings);
}

/**
 * Runs the rules over the tree, or over `scope.window` of it (the rules then look for candidates only
 * there; findings come back unsorted and unsuppressed).
 */
export function runRules(tree: Tree, text: string, opts: LintOptions, scope?: RunScope): RuleRun {
  if (opts.targets.length === 0) throw new Error("lintTree: no target architectures given");
  const idx = FileIndex.begin(tree, text, scope?.window, scope?.carried);
  if (scope?.contextFrom) idx.takeOver(scope.contextFrom, CONTEXT_VALUES);
  const deps = new Map<string, readonly Dependency[]>();
  const targets = [...new Set(opts.targets)].sort((a, b) => a - b);
  const options: RuleOptions = {
    launchCheckMacros: opts.ruleOptions?.launchCheckMacros ?? [],
    conventions: opts.ruleOptions?.conventions,
    headerRoot: opts.ruleOptions?.headerRoot,
  };
  const findings: Finding[] = [];
  const failures: RuleFailure[] = [];
  const timings = new Map<string, number>();
  const build = opts.build ?? STANDALONE_BUILD;
  const testSource = isTestSource(opts.fileName);
  for (const rule of opts.rules) {
    const override = opts.severity?.[rule.id];
    if (
      override === "off" ||
      (rule.convention && !options.conventions?.[rule.convention]) ||
      (rule.archDependent && build.targets === "none") ||
      (rule.shippedCodeOnly && testSource)
    )
      continue;
    const severity = override ?? rule.defaultSeverity;
    const own: Finding[] = [];
    // One finding per rule per span: a token reached twice (two operators sharing an operand, a name
    // matched by two patterns) is reported once, with the first finding's message and fixes.
    const spans = new Set<string>();
    const ctx: LintContext = {
      tree,
      text,
      fileName: opts.fileName,
      targets,
      options,
      build,
      report(f: { node?: Node; span?: Span; message: string; fixes?: Fix[]; basis?: Basis }) {
        const span = f.span ?? (f.node ? spanOf(f.node) : ZERO);
        const key = `${span.startLine},${span.startColumn},${span.endLine},${span.endColumn}`;
        if (spans.has(key)) return;
        spans.add(key);
        own.push({
          rule: rule.id,
          severity: override ?? (f.basis ? SEVERITY_OF[f.basis] : severity),
          message: f.message,
          span,
          fixes: f.fixes ?? [],
        });
      },
    };
    const started = performance.now();
    try {
      deps.set(rule.id, [...idx.deps.record(() => rule.check(ctx))]);
      findings.push(...own);
    } catch (err) {
      // The stack says where a rule broke; the message alone rarely does.
      failures.push({
        rule: rule.id,
        message: err instanceof Error && err.stack ? err.stack : errorMessage(err),
      });
    }
    timings.set(rule.id, performance.now() - started);
  }
  return { findings, failures, timings, facts: idx.facts, contextKey: fileContextKey(idx), deps };
}
