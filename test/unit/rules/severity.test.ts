// The severity policy (server/rules/severity.ts, README "Severity policy"): every rule's default severity
// follows from its basis, and its doc and the README's table say the same.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { rules } from "../../../server/rules/index";
import { SEVERITY_OF, type Basis } from "../../../server/rules/severity";
import { lintSource } from "../../../server/lint/lintDocument";
import { STANDALONE_BUILD } from "../../../server/lint/engine";

const ROOT = join(__dirname, "..", "..", "..");

/** The README policy table: basis → [severity, rule ids]. */
function policyTable(): Map<string, { severity: string; rules: string[] }> {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("**Severity policy.**"));
  const rows = new Map<string, { severity: string; rules: string[] }>();
  for (const line of section.split("\n").slice(0, 20)) {
    const cells = line.split("|").map((c) => c.trim());
    const basis = /^`([a-z-]+)`$/.exec(cells[1] ?? "")?.[1];
    if (basis)
      rows.set(basis, {
        severity: cells[2]!,
        rules: [...cells[4]!.matchAll(/`([a-z0-9-]+)`/g)].map((m) => m[1]!),
      });
  }
  return rows;
}

describe("severity policy", () => {
  const table = policyTable();

  it("the README's table lists each basis once, with the policy's severity", () => {
    assert.deepEqual([...table.keys()].sort(), Object.keys(SEVERITY_OF).sort());
    for (const [basis, row] of table) assert.equal(row.severity, SEVERITY_OF[basis as Basis], basis);
  });

  for (const rule of rules) {
    it(`${rule.id}: severity from its basis, in its doc and the README`, () => {
      assert.equal(rule.defaultSeverity, SEVERITY_OF[rule.basis]);
      const doc = readFileSync(join(ROOT, "server", "rules", "docs", `${rule.id}.md`), "utf8");
      assert.match(doc.split("\n")[0]!, new RegExp(`^# ${rule.id} \\(${rule.defaultSeverity}\\b`));
      assert.ok(
        table.get(rule.basis)?.rules.includes(rule.id),
        `README lists ${rule.id} under ${rule.basis}`,
      );
    });
  }

  it("a finding resting on an inferred build switch is information, on the build's own -D an error", async () => {
    const text = `#include <torch/extension.h>\n#include <cuda_fp16.h>\n__global__ void k(__half* y, const __half* x) { y[0] = x[0] * x[1]; }\n`;
    const lint = (definesKnown: boolean) =>
      lintSource(text, { rules, targets: [90], build: { ...STANDALONE_BUILD, definesKnown } });
    const inferred = (await lint(false)).filter((f) => f.rule === "half-operator");
    const known = (await lint(true)).filter((f) => f.rule === "half-operator");
    assert.deepEqual(
      inferred.map((f) => f.severity),
      ["information"],
    );
    assert.deepEqual(
      known.map((f) => f.severity),
      ["error"],
    );
  });
});
