// Every rule against its fixtures: each `fires/` file must produce the rule at every line marked
// `// expect: RULE` (the marker sits on the offending line), each `clean/` file must not produce it.
// Each quick fix is applied for real and must remove a finding without breaking the parse; a rule listed
// as offering fixes must offer one on some fixture, and the others none.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { lintSource, parseSource } from "../../../server/lint/lintDocument";
import { rules } from "../../../server/rules/index";
import type { Finding, Fix, Severity } from "../../../server/rules/rule";
import { DEFAULT_SUFFIXES } from "../../../server/rules/conventions";
import { applyEdits, errorCount, fixtureBuild, fixtureTargets } from "./helpers";

const ROOT = join(__dirname, "..", "..", "fixtures", "rules");
const RANK: Readonly<Record<Severity, number>> = { hint: 0, information: 1, warning: 2, error: 3 };

function files(rule: string, kind: "fires" | "clean"): string[] {
  const dir = join(ROOT, rule, kind);
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => /\.cuh?$/.test(f))
        .map((f) => join(dir, f))
    : [];
}

/** Project-convention rules run only where a project opts in: the fixtures opt into all of them. */
const ALL_CONVENTIONS = { launchCheckMacros: [], conventions: { candle: true, flashrt: DEFAULT_SUFFIXES } };

async function lintRule(text: string, ruleId: string): Promise<Finding[]> {
  const findings = await lintSource(text, {
    rules,
    targets: fixtureTargets(text),
    build: fixtureBuild(text),
    ruleOptions: ALL_CONVENTIONS,
  });
  return findings.filter((f) => f.rule === ruleId);
}

/** The rules whose findings come with quick fixes; every other rule must offer none. */
const WITH_FIXES: ReadonlySet<string> = new Set([
  "bf16-unsupported-arch",
  "block-size-not-warp-multiple",
  "candle-extern-c",
  "deprecated-shuffle",
  "half-implicit-conversion",
  "half-operator",
  "int-index-overflow",
  "missing-launch-check",
]);

/**
 * Applies a fixture's fixes one at a time (fixes of one finding may overlap another's), each of which must
 * remove a finding without breaking the parse. Returns how many were applied.
 */
async function applyAllFixes(original: string, ruleId: string): Promise<number> {
  let text = original;
  const errorsBefore = errorCount(await parseSource(text));
  for (let round = 0; round < 20; round++) {
    const found = await lintRule(text, ruleId);
    const fix: Fix | undefined = found.find((f) => f.fixes.length > 0)?.fixes[0];
    if (!fix) return round;
    const next = applyEdits(text, fix.edits);
    const after = await lintRule(next, ruleId);
    assert.ok(
      after.length < found.length,
      `fix "${fix.title}" left ${after.length} of ${found.length} findings:\n${next}`,
    );
    const tree = await parseSource(next);
    assert.ok(errorCount(tree) <= errorsBefore, `fix "${fix.title}" broke the parse:\n${next}`);
    tree.delete();
    text = next;
  }
  assert.fail("fixes did not converge in 20 rounds");
}

describe("rule fixtures", () => {
  for (const rule of rules) {
    describe(rule.id, () => {
      const fires = files(rule.id, "fires");
      const clean = files(rule.id, "clean");

      it("has at least five firing fixtures and five look-alikes", () => {
        assert.ok(fires.length >= 5, `${fires.length} fires/ fixtures`);
        assert.ok(clean.length >= 5, `${clean.length} clean/ fixtures`);
      });

      for (const file of fires) {
        it(`fires: ${file.split("/").slice(-1)[0]}`, async () => {
          const text = readFileSync(file, "utf8");
          const expected = text
            .split("\n")
            .flatMap((line, i) => (line.includes(`// expect: ${rule.id}`) ? [i] : []));
          assert.ok(expected.length > 0, "fixture has no `// expect:` marker");
          const found = await lintRule(text, rule.id);
          // Exactly the marked lines: a finding elsewhere in a firing fixture is as wrong as a missing one.
          const lines = [...new Set(found.map((f) => f.span.startLine + 1))].sort((a, b) => a - b);
          assert.deepEqual(
            lines,
            expected.map((l) => l + 1),
            `${rule.id} lines`,
          );
          // A finding may rest on less than its rule's basis (severity policy), never on more.
          for (const f of found) assert.ok(RANK[f.severity] <= RANK[rule.defaultSeverity], f.message);
        });
      }

      for (const file of clean) {
        it(`clean: ${file.split("/").slice(-1)[0]}`, async () => {
          const found = await lintRule(readFileSync(file, "utf8"), rule.id);
          assert.deepEqual(
            found.map((f) => `${f.span.startLine + 1}: ${f.message}`),
            [],
          );
        });
      }

      if (WITH_FIXES.has(rule.id)) {
        it("offers quick fixes, and each applies cleanly", async () => {
          let offered = 0;
          for (const file of fires) offered += await applyAllFixes(readFileSync(file, "utf8"), rule.id);
          assert.ok(offered > 0, `no firing fixture of ${rule.id} got a quick fix`);
        });
      } else {
        it("offers no quick fix (its doc says a person must decide)", async () => {
          for (const file of fires) {
            const found = await lintRule(readFileSync(file, "utf8"), rule.id);
            assert.deepEqual(
              found.flatMap((f) => f.fixes.map((x) => x.title)),
              [],
              file,
            );
          }
        });
      }
    });
  }
});
