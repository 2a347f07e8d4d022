// The rules must leave no tree-sitter object for the garbage collector to free: web-tree-sitter 0.27's
// finalizer for an undeleted TreeCursor deletes whatever cursor its transfer buffer holds, corrupting
// wasm memory, and the next edit fails with "memory access out of bounds" (a lazily walked cursor did,
// in the bundled server, after ~40 edits of a 5,000-line file). Here the collector runs, and its
// finalizers get their turn, after every lint of a document being edited.
import assert from "node:assert/strict";
import { test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { LintDocument } from "../../../server/lint/lintDocument";
import { cudaParser } from "../../../server/lint/parser";
import { change, EXAMPLES, OPTS } from "./editing";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

test("linting while the collector runs finalizers after every edit leaves wasm memory intact", async () => {
  const parser = await cudaParser();
  const text = EXAMPLES.join("\n");
  const doc = new LintDocument(parser, text);
  try {
    doc.lint(OPTS);
    const bodies = [...text.matchAll(/\{\n/g)].map((m) => m.index + 2);
    let current = text;
    for (let i = 0; i < 60; i++) {
      const at = bodies[(Math.floor(i / 2) * 7919) % bodies.length]!;
      const insert = i % 2 === 0;
      const next = insert
        ? current.slice(0, at) + " " + current.slice(at)
        : current.slice(0, at) + current.slice(at + 1);
      doc.update(next, [insert ? change(current, at, at, " ") : change(current, at, at + 1, "")]);
      current = next;
      const result = doc.lint(OPTS);
      assert.equal(result.kind, "linted", `edit ${i}`);
      gc();
      await new Promise((resolve) => setImmediate(resolve)); // FinalizationRegistry callbacks run here
    }
  } finally {
    doc.dispose();
  }
});
