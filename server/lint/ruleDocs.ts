// Where a rule's markdown doc is: dist/rules/<id>.md next to the bundle, server/rules/docs/<id>.md in the source tree.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

export function ruleDocPath(ruleId: string): string | undefined {
  for (const candidate of [
    join(__dirname, "rules", `${ruleId}.md`),
    join(__dirname, "..", "rules", "docs", `${ruleId}.md`),
  ])
    if (existsSync(candidate)) return candidate;
  return undefined;
}

const cache = new Map<string, string | undefined>();
/** A file URI for the diagnostic's codeDescription, or undefined when the rule has no doc. */
export function ruleDocUri(ruleId: string): string | undefined {
  if (!cache.has(ruleId)) {
    const path = ruleDocPath(ruleId);
    cache.set(ruleId, path ? pathToFileURL(path).href : undefined);
  }
  return cache.get(ruleId);
}

/** The rule's markdown doc, or undefined when it has none (SARIF's help.markdown). */
export function ruleDocText(ruleId: string): string | undefined {
  const path = ruleDocPath(ruleId);
  return path ? readFileSync(path, "utf8") : undefined;
}
