// A windowed run reads half declarations from the window's span of code text (codeText.ts codeSpan);
// what it reads must be what reading the whole-file code text (the window blanked, the rest as it is)
// gives, also where a declaration runs on past the span's end.
import assert from "node:assert/strict";
import { test } from "node:test";
import { cudaParser } from "../../../server/lint/parser";
import { codeOnly } from "../../../server/analysis/source/codeText";
import { FileIndex } from "../../../server/analysis/source/fileIndex";
import { halfDecls } from "../../../server/analysis/types/halfDecls";
import { halfName, readHalfTypes } from "../../../server/analysis/types/halfText";

const FILLER = "  /* not a terminator: ; */\n".repeat(40);

const CASES: { name: string; text: string }[] = [
  {
    name: "a declaration ending in the window",
    text: `int a;\n__device__ void f(const __half* x) {\n  __half y = x[0]; // ;\n}\nint b;\n`,
  },
  {
    name: "a declaration running on far past the window",
    text: `int a;\n__half g = (1 +\n${FILLER}  2);\nint b;\n`,
  },
];

test("half names read from a window's code span equal those read from the whole code text", async () => {
  const parser = await cudaParser();
  for (const { name, text } of CASES) {
    const tree = parser.parse(text)!;
    const start = text.indexOf("__");
    const window = { start, end: text.indexOf("\n", start) + 1 };
    const idx = FileIndex.begin(tree, text, window, { fileHalfEntries: [], halfNames: [] });
    halfDecls(idx);
    const to = Math.min(text.length, window.end + 400);
    const code = text.slice(0, start) + codeOnly(text.slice(start, to)) + text.slice(to);
    const whole = readHalfTypes(code, window.start, window.end).map(halfName);
    assert.ok(whole.length > 0, name);
    assert.deepEqual(JSON.stringify(idx.facts.halfNames), JSON.stringify(whole), name);
    tree.delete();
  }
});
