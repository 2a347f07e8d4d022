// Editing a LintDocument the way an editor does, and the whole-file lint its findings must equal: shared
// by the lint tests (incremental, relint, parser, fuzz).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Tree } from "web-tree-sitter";
import { lintTree, type LintOptions } from "../../../server/lint/engine";
import { CLI_LIMITS, LintDocument } from "../../../server/lint/lintDocument";
import { cudaParser } from "../../../server/lint/parser";
import type { Finding } from "../../../server/rules/rule";
import { rules } from "../../../server/rules/index";
import { change } from "./textEdits";

const REPO = join(__dirname, "..", "..", "..");
export const OPTS: LintOptions = { fileName: "incremental.cu", targets: [75, 90], rules };

export { change, edited, pointAt } from "./textEdits";

export const EXAMPLES = readdirSync(join(REPO, "examples"))
  .filter((f) => /\.cuh?$/.test(f))
  .sort()
  .map((f) => readFileSync(join(REPO, "examples", f), "utf8"));

/** A whole-file lint of the document's current tree: what its incremental findings must equal. */
export function wholeFile(doc: LintDocument, text: string): Finding[] {
  const tree = doc.syntaxTree();
  assert.notEqual(typeof tree, "string");
  return lintTree(tree as Tree, text, OPTS).findings;
}

/** One line per finding (rule, span, fixes, message): a mismatch reads as a short diff. */
export function lines(findings: readonly Finding[]): string[] {
  const at = (s: Finding["span"]): string => `${s.startLine}:${s.startColumn}-${s.endLine}:${s.endColumn}`;
  return findings.map(
    (f) =>
      `${f.rule} ${at(f.span)} fixes ${f.fixes.map((x) => x.edits.map((e) => `${at(e.span)}=${JSON.stringify(e.newText)}`).join(",")).join(" | ")} ${f.message}`,
  );
}

export interface AfterEdit {
  scope: string;
  /** The rules a windowed relint ran over the whole file again. */
  wholeFileRules: readonly string[];
  was: Finding[];
  now: Finding[];
}

/**
 * Lints `before`, applies one replacement, lints again (asserting the findings equal a whole-file
 * lint's) and returns the second lint's scope and the findings of `rule` before and after.
 */
export async function afterEdit(
  before: string,
  find: string,
  replace: string,
  rule: string,
): Promise<AfterEdit> {
  const parser = await cudaParser();
  const doc = new LintDocument(parser, before, CLI_LIMITS);
  const first = doc.lint(OPTS);
  const at = before.indexOf(find);
  assert.ok(at >= 0, `${find} is not in the text`);
  const after = before.slice(0, at) + replace + before.slice(at + find.length);
  doc.update(after, [change(before, at, at + find.length, replace)]);
  const out = doc.lint(OPTS);
  const whole = wholeFile(doc, after);
  doc.dispose();
  assert.ok(first.kind === "linted" && out.kind === "linted");
  assert.deepEqual(lines(out.findings), lines(whole));
  const of = (fs: Finding[]): Finding[] => fs.filter((f) => f.rule === rule);
  return {
    scope: out.scope,
    wholeFileRules: out.wholeFileRules ?? [],
    was: of(first.findings),
    now: of(out.findings),
  };
}
