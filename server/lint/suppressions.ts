// Suppression comments: `// cuda-kernel-dev-disable-next-line RULE[, RULE]`, `…-disable-line`, `…-disable-file`.
// Read from the text, not the tree, so they work even where the tree has ERROR nodes.
import type { Finding } from "../rules/rule";

export const SUPPRESSION_PREFIX = "cuda-kernel-dev-disable-";

/** Rule ids a directive names; an empty set means every rule. Text after `--` is a free-form reason. */
type RuleSet = ReadonlySet<string>;

export interface Suppressions {
  /** 0-based line -> rules silenced on that line. */
  lines: Map<number, RuleSet[]>;
  file: RuleSet[];
}

const DIRECTIVE = /\/\/\s*cuda-kernel-dev-disable-(next-line|line|file)\b([^\r\n]*)/g;

function ruleSet(rest: string): RuleSet {
  const beforeReason = rest.split("--")[0] ?? "";
  return new Set(beforeReason.split(/[\s,]+/).filter((s) => s.length > 0));
}

export function parseSuppressions(text: string): Suppressions {
  const result: Suppressions = { lines: new Map(), file: [] };
  if (!text.includes(SUPPRESSION_PREFIX)) return result;
  let line = 0;
  let lineStart = 0;
  for (const m of text.matchAll(DIRECTIVE)) {
    // Count lines incrementally between matches instead of splitting the whole text.
    for (let i = text.indexOf("\n", lineStart); i !== -1 && i < m.index; i = text.indexOf("\n", i + 1)) {
      line++;
      lineStart = i + 1;
    }
    const rules = ruleSet(m[2] ?? "");
    if (m[1] === "file") {
      result.file.push(rules);
      continue;
    }
    const target = m[1] === "next-line" ? line + 1 : line;
    const list = result.lines.get(target) ?? [];
    list.push(rules);
    result.lines.set(target, list);
  }
  return result;
}

const silences = (sets: readonly RuleSet[] | undefined, rule: string): boolean =>
  sets !== undefined && sets.some((s) => s.size === 0 || s.has(rule));

/** Whether a finding is silenced: by a file directive, or a line directive on the line it starts. */
export function isSuppressed(s: Suppressions, finding: Finding): boolean {
  return silences(s.file, finding.rule) || silences(s.lines.get(finding.span.startLine), finding.rule);
}
