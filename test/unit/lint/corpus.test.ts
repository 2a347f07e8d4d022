// The real-world corpus (test/fixtures/corpus): every finding the CLI reports there has a hand-made
// label. Fails when a false positive marked fixed comes back, a true positive is lost, a false positive
// is gone but not yet marked fixed, or a finding has no label. `npm run corpus:table -- --update` adds
// the unlabelled findings and marks the fixed false positives; a person then writes each verdict.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { keyString, lintCorpus, readLabels, triage, type Label, type Triage } from "../../support/corpus";

const where = (l: Pick<Label, "file" | "line" | "rule" | "text">): string =>
  `${l.file}:${l.line} [${l.rule}] ${l.text}`;

describe("real-world corpus", () => {
  let labels: Label[];
  let t: Triage;
  before(() => {
    labels = readLabels();
    t = triage(lintCorpus(), labels);
  });

  test("labels are unique and well formed", () => {
    const keys = labels.map(keyString);
    assert.equal(new Set(keys).size, keys.length, "two labels share a key");
    for (const l of labels) {
      assert.ok(["tp", "fp", "unlabelled"].includes(l.verdict), where(l));
      assert.ok(l.reason.trim().length > 0, `no reason: ${where(l)}`);
      if (l.verdict === "fp") assert.ok(l.category, `a false positive needs a category: ${where(l)}`);
    }
  });

  test("no false positive marked fixed comes back", () => {
    assert.deepEqual(t.fpBack.map(where), [], "a fixed false positive is reported again");
  });

  test("no true positive is lost", () => {
    assert.deepEqual(t.tpLost.map(where), [], "a labelled true positive is no longer reported");
  });

  test("false positives no longer reported are marked fixed", () => {
    assert.deepEqual(
      t.fpGone.map(where),
      [],
      "these false positives are gone: mark them fixed (npm run corpus:table -- --update)",
    );
  });

  test("every finding is labelled", () => {
    const missing = t.unlabelled.map(({ finding, key }) =>
      where({ file: key.file, line: finding.line, rule: key.rule, text: key.text }),
    );
    assert.deepEqual(
      missing,
      [],
      "label it: npm run corpus:table -- --update, then write tp/fp and a reason",
    );
  });
});
