// One document's text and syntax tree, kept in step with edits so each lint reparses incrementally and
// runs the rules only over the definitions the edits touched (incremental.ts).
import type { Tree } from "web-tree-sitter";
import type { Finding, Rule } from "../rules/rule";
import { finishFindings, runRules, type LintOptions, type RuleFailure } from "./engine";
import {
  addChange,
  changedRegions,
  optionsKey,
  relint,
  windowAround,
  type LintState,
  type Region,
} from "./incremental";
import { renderJinjaForCuda } from "./codegenTemplate";
import { normalizeLineEnds } from "./lineEnds";
import { cudaParser, DEFAULT_PARSE_TIMEOUT_MS, editTree, type CudaParser, type TextChange } from "./parser";

export interface DocumentLimits {
  /** Larger documents are not parsed at all (UTF-16 code units, ~bytes for source code). */
  maxChars: number;
  parseTimeoutMs: number;
}

/** In the editor: a fresh parse runs at ~3 MB/s, so 1 MB holds the event loop ~0.3 s once, on open. */
export const EDITOR_LIMITS: DocumentLimits = {
  maxChars: 1024 * 1024,
  parseTimeoutMs: DEFAULT_PARSE_TIMEOUT_MS,
};
/** In the CLI nothing waits on the event loop: only pathological input is cut off. */
export const CLI_LIMITS: DocumentLimits = { maxChars: Number.POSITIVE_INFINITY, parseTimeoutMs: 20_000 };

export type LintOutcome =
  | {
      kind: "linted";
      findings: Finding[];
      failures: RuleFailure[];
      timings: Map<string, number>;
      /** What the rules ran over: the whole file, the definitions an edit touched, or nothing (no change). */
      scope: "file" | "window" | "unchanged";
      /** With "window": the rules that ran over the whole file again (the edit changed a fact they read). */
      wholeFileRules?: readonly string[];
    }
  /** Not linted; `reason` is a sentence for the user. */
  | { kind: "skipped"; reason: string };

export class LintDocument {
  private tree: Tree | undefined;
  /** The tree no longer matches the text: edited or never parsed. */
  private dirty = true;
  /** The last lint, for the next one to build on; undefined when it must start over. */
  private last: LintState | undefined;
  /** Where the text and the tree changed since the last lint (offsets in the current text). */
  private touched: Region[] = [];

  /** The text as the rules see it: lone "\r" line ends read as "\n" (lineEnds.ts), templates rendered. */
  private text: string;
  /** The text is a template's rendering (codegenTemplate.ts). */
  private template = false;

  constructor(
    private readonly parser: CudaParser,
    text: string,
    private readonly limits: DocumentLimits = EDITOR_LIMITS,
  ) {
    const normal = normalizeLineEnds(text);
    this.text = renderJinjaForCuda(normal) ?? normal;
    this.template = this.text !== normal;
  }

  /**
   * The text linted: the document's, with lone "\r" line ends read as "\n", and a code-generation
   * template read as its CUDA rendering (codegenTemplate.ts); same offsets.
   */
  get currentText(): string {
    return this.text;
  }

  /**
   * Replaces the text. `changes` (in order, each relative to the text after the previous one) let the
   * next parse reuse the old tree; without them the next parse starts from scratch.
   */
  update(text: string, changes?: readonly TextChange[]): void {
    const normal = normalizeLineEnds(text);
    const next = renderJinjaForCuda(normal) ?? normal;
    const template = this.template || next !== normal;
    this.template = next !== normal;
    // An edit beside a "\r" can change how a "\r" outside it reads ("\r" + typed "\n" is one line end,
    // no longer two), and one in a template how lines far from it render: the tree cannot be told, so
    // such an update reparses from scratch.
    if (this.tree && changes && !template && (!text.includes("\r") || applied(this.text, changes) === next))
      for (const c of changes) {
        editTree(this.tree, c);
        this.touched = addChange(this.touched, c);
      }
    else this.freeTree();
    this.text = next;
    this.dirty = true;
  }

  /** The syntax tree of the current text, or a sentence saying why there is none. */
  syntaxTree(): Tree | string {
    if (this.text.length > this.limits.maxChars) {
      this.freeTree();
      const mb = (n: number): string => (n / (1024 * 1024)).toFixed(1);
      return `not linted: ${mb(this.text.length)} MB is above the ${mb(this.limits.maxChars)} MB limit for live linting (run \`cuda-kernel-dev lint\` on it instead)`;
    }
    if (this.tree && !this.dirty) return this.tree;
    const tree = this.parser.parse(this.text, this.tree, this.limits.parseTimeoutMs);
    if (!tree) {
      this.freeTree();
      return `not linted: parsing took longer than ${this.limits.parseTimeoutMs} ms`;
    }
    // Where the reparse read the text differently (a `/*` typed turns the rest of the file into a comment).
    const changed =
      this.tree && this.touched.length > 0
        ? windowAround(
            [this.tree, tree],
            [...this.touched, ...changedRegions(this.tree.getChangedRanges(tree))],
            this.text.length,
          )
        : undefined;
    this.tree?.delete();
    this.tree = tree;
    this.dirty = false;
    if (changed) this.touched = [changed];
    else this.last = undefined;
    return tree;
  }

  lint(opts: LintOptions): LintOutcome {
    const tree = this.syntaxTree();
    if (typeof tree === "string") return { kind: "skipped", reason: tree };
    const key = optionsKey(opts);
    // Earlier findings only count for the same options.
    const last = this.last?.optionsKey === key ? this.last : undefined;
    let scope: "file" | "window" | "unchanged" = "unchanged";
    let run = last && this.touched.length === 0 && last.text === this.text ? last.run : undefined;
    if (!run && last) {
      run = relint(last, tree, this.text, this.touched, opts);
      scope = "window";
    }
    if (!run) {
      run = runRules(tree, this.text, opts);
      scope = "file";
    }
    this.last = { text: this.text, optionsKey: key, run };
    this.touched = [];
    const { failures, timings } = run;
    const findings = finishFindings(tree, this.text, opts, run.findings);
    const wholeFileRules = scope === "window" ? (run.wholeFileRules ?? []) : undefined;
    return { kind: "linted", findings, failures, timings, scope, wholeFileRules };
  }

  /** Frees the tree's wasm memory; the document can still be linted (it reparses). */
  dispose(): void {
    this.freeTree();
  }

  /** Without a tree to compare with, the next reparse cannot say what changed: the next lint starts over. */
  private freeTree(): void {
    this.tree?.delete();
    this.tree = undefined;
    this.dirty = true;
    this.last = undefined;
    this.touched = [];
  }
}

/** `text` after `changes`, each made line-end-normal: what the edited tree describes. */
function applied(text: string, changes: readonly TextChange[]): string {
  let out = text;
  for (const c of changes)
    out = out.slice(0, c.startOffset) + normalizeLineEnds(c.newText) + out.slice(c.oldEndOffset);
  return out;
}

/** Parses and lints one source text: for tests and one-off use. Defaults: targets [75, 90], no overrides. */
export async function lintSource(
  text: string,
  opts: { rules: readonly Rule[] } & Partial<Omit<LintOptions, "rules">>,
): Promise<Finding[]> {
  const doc = new LintDocument(await cudaParser(), text, CLI_LIMITS);
  try {
    const out = doc.lint({ fileName: "test.cu", targets: [75, 90], ...opts });
    if (out.kind === "skipped") throw new Error(out.reason);
    if (out.failures.length > 0)
      throw new Error(`rule ${out.failures[0]!.rule} threw: ${out.failures[0]!.message}`);
    return out.findings;
  } finally {
    doc.dispose();
  }
}

/** Parses one source text (the caller deletes the tree). */
export async function parseSource(text: string): Promise<Tree> {
  const tree = (await cudaParser()).parse(normalizeLineEnds(text), null, CLI_LIMITS.parseTimeoutMs);
  if (!tree) throw new Error("parse timed out");
  return tree;
}
