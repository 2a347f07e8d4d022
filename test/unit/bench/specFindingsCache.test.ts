// The language server's spec findings cache: after every edit its findings must equal a fresh scan's,
// and edits inside kernel bodies must not scan the file again.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { prng } from "../fuzz/mutate";
import { benchSpecFindings } from "../../../server/bench/specDiagnostics";
import { SpecFindingsCache } from "../../../server/bench/specFindingsCache";

const REPO = join(__dirname, "..", "..", "..");
const EXAMPLES = readdirSync(join(REPO, "examples"))
  .filter((f) => /\.cuh?$/.test(f))
  .sort()
  .map((f) => readFileSync(join(REPO, "examples", f), "utf8"));
const WITH_SPECS = EXAMPLES.filter((t) => t.includes("@bench"));

const TOKENS = [
  "x",
  " ",
  "\n",
  "y1",
  "{",
  "}",
  ";",
  "(",
  "//",
  "/*",
  '"',
  "#",
  "@bench",
  "__global__",
  "template",
  "int n",
];

test("the examples hold @bench specs to test with", () => {
  assert.ok(WITH_SPECS.length >= 2);
});

test("random edits: the cached findings equal a fresh scan's after every edit", () => {
  const rng = prng(Number(process.env.FUZZ_SEED ?? 7));
  const rand = (n: number): number => rng.int(n);
  for (const original of [...WITH_SPECS, WITH_SPECS.join("\n")]) {
    const cache = new SpecFindingsCache();
    let text = original;
    for (let i = 0; i < 150; i++) {
      const at = rand(text.length + 1);
      const del = rand(3) === 0 ? rand(12) : 0;
      text = text.slice(0, at) + (del > 0 ? "" : TOKENS[rand(TOKENS.length)]!) + text.slice(at + del);
      assert.deepEqual(cache.findings(text), benchSpecFindings(text), `edit ${i}`);
    }
  }
});

test("typing inside kernel bodies moves the findings without scanning the file again", () => {
  const text = WITH_SPECS.join("\n");
  const cache = new SpecFindingsCache();
  cache.findings(text);
  // The first statement of each body, where it and the line above hold no comment, string or directive.
  const bodies = [...text.matchAll(/\{\n( +)[^\n]*\n/g)]
    .filter((m) => !/[/#\\"']/.test(text.slice(text.lastIndexOf("\n", m.index) + 1, m.index + m[0].length)))
    .map((m) => m.index + 2);
  assert.ok(bodies.length >= 8, `${bodies.length} bodies`);
  let current = text;
  for (const [i, at] of bodies.entries()) {
    // a line break typed above the statement (the findings below move down a line), then a letter
    current = current.slice(0, at + i * 3) + "\nx " + current.slice(at + i * 3);
    assert.deepEqual(cache.findings(current), benchSpecFindings(current));
  }
  assert.equal(cache.scans, 1);
});
