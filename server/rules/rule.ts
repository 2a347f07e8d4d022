// The contract between the lint engine (server/lint/) and the rules (server/rules/<rule-id>.ts).
import type { Node, Tree } from "web-tree-sitter";
import type { Conventions } from "./conventions";
import type { Basis } from "./severity";

export type Severity = "error" | "warning" | "information" | "hint";

/** 0-based lines and UTF-16 columns, end exclusive: the LSP convention. */
export interface Span {
  startLine: number;
  startColumn: number;
  endLine: number;
  endColumn: number;
}

export interface TextEdit {
  span: Span;
  newText: string;
}

/** A quick fix: only offered where applying it keeps the code correct. */
export interface Fix {
  title: string;
  edits: TextEdit[];
  isPreferred?: boolean;
}

export interface Finding {
  rule: string;
  severity: Severity;
  message: string;
  span: Span;
  fixes: Fix[];
}

export interface RuleOptions {
  /** Extra launch-check macros accepted by missing-launch-check (besides the built-in ones). */
  launchCheckMacros: string[];
  /** The project conventions the workspace opted into (`[conventions]` in .cuda-kernel-dev.toml). */
  conventions?: Conventions;
  /** The folder above which project headers are not read (the workspace or lint root); default: the file's. */
  headerRoot?: string;
}

/** The file's build context as the rules see it (server/lint/buildContext.ts computes it, once per file). */
export interface BuildFacts {
  /**
   * "declared" by the setting or a build file; "gpu": none declared, this machine's GPU assumed; "none":
   * none at all, and rules marked `archDependent` do not run.
   */
  readonly targets: "declared" | "gpu" | "none";
  /**
   * Whether the project chose its targets (cuda-capabilities, CMake, setup.py, the setting…), as opposed
   * to kernel-builder's default capabilities or this machine's GPU standing in; absent: as `targets`
   * says ("declared" counts as chosen).
   */
  readonly targetsDeclared?: boolean;
  /** Macros the compiler command line defines: name → value ("1" for a bare -DNAME). */
  readonly defines: ReadonlyMap<string, string>;
  /** Macros known to be undefined (-U, and HIP's own in a CUDA build). */
  readonly undefines: ReadonlySet<string>;
  /** False when no build file says how the file is compiled: a rule may then go by the file's own includes. */
  readonly definesKnown: boolean;
  /** A PyTorch extension by its build (build.toml [torch], setup.py's CUDAExtension). */
  readonly pytorch?: boolean;
  /** The include directories the build gives the compiler (absolute): project headers are looked for there too. */
  readonly includeDirs?: readonly string[];
}

export interface LintContext {
  readonly tree: Tree;
  readonly text: string;
  /** The document's path or URI, for messages only. */
  readonly fileName: string;
  /** Target SM versions being built, e.g. [75, 90]; ascending; never empty. */
  readonly targets: readonly number[];
  readonly options: RuleOptions;
  readonly build: BuildFacts;
  /**
   * `basis`: where this finding rests on less than the rule's basis (a build switch inferred from the
   * file's includes rather than read from its build), and so takes that basis' severity.
   */
  report(finding: { node?: Node; span?: Span; message: string; fixes?: Fix[]; basis?: Basis }): void;
}

export interface Rule {
  /** Stable id, part of the interface: configs, suppressions and CI scripts name it. */
  readonly id: string;
  readonly defaultSeverity: Severity;
  /** What its findings rest on; the severity policy (severity.ts) derives defaultSeverity from it. */
  readonly basis: Basis;
  /** One line, shown in docs and SARIF. */
  readonly summary: string;
  /** A project convention, not a general rule: it runs only where the project opts into it. */
  readonly convention?: keyof Conventions;
  /** Its findings depend on the target architectures: it does not run when none are declared. */
  readonly archDependent?: boolean;
  /**
   * Some of its checks depend on the target architectures (named in the no-targets note, e.g. "per-target
   * limits"): it runs without targets and skips those itself (`build.targets === "none"`).
   */
  readonly archDependentPart?: string;
  /** Its findings are about speed or sizes a shipped kernel meets: it does not run on tests (lint/testSources.ts). */
  readonly shippedCodeOnly?: boolean;
  check(ctx: LintContext): void;
}
