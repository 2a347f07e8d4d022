// Files with old-Mac line ends (a lone "\r"): the compiler and the editor end a line at "\r", "\n" and
// "\r\n", and so must the linter, in the CLI and in the language server (LintDocument, as edits arrive).
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { TextDocument } from "vscode-languageserver-textdocument";
import { CLI_LIMITS, LintDocument, lintSource } from "../../../server/lint/lintDocument";
import { cudaParser, type TextChange } from "../../../server/lint/parser";
import { rules } from "../../../server/rules/index";
import type { Finding } from "../../../server/rules/rule";
import { runCli } from "../../support/cliRun";
import { tempDir } from "../../support/tempDir";

const root = tempDir("ckd-line-ends-");
after(() => rmSync(root, { recursive: true, force: true }));

// Line 4 (1-based) holds the deprecated shuffle, after a `//` comment on line 1.
const LINES = [
  "// warp reduction",
  "__device__ float warp_sum(float v) {",
  "  for (int o = 16; o > 0; o >>= 1)",
  "    v += __shfl_xor(v, o);",
  "  return v;",
  "}",
  "",
];
const OPTS = { rules, fileName: "k.cu", targets: [75, 90] };
const shuffles = (fs: readonly Finding[]): Finding[] => fs.filter((f) => f.rule === "deprecated-shuffle");

/** Where the editor puts [line, character] of the first `needle`. */
function editorPosition(text: string, needle: string): [number, number] {
  const p = TextDocument.create("file:///k.cu", "cuda-cpp", 1, text).positionAt(text.indexOf(needle));
  return [p.line, p.character];
}

describe("lone \\r line ends", () => {
  for (const [name, eol] of [
    ["\\r", "\r"],
    ["\\r\\n", "\r\n"],
  ] as const)
    it(`with ${name} line ends, code after a // comment is linted, at the editor's line and column`, async () => {
      const text = LINES.join(eol);
      const found = shuffles(await lintSource(text, OPTS));
      assert.equal(found.length, 1, `findings: ${found.length}`);
      assert.deepEqual(
        [found[0]!.span.startLine, found[0]!.span.startColumn],
        editorPosition(text, "__shfl_xor"),
      );
    });

  it("without a comment, positions are the editor's (not row 0)", async () => {
    const text = LINES.slice(1).join("\r");
    const found = shuffles(await lintSource(text, OPTS));
    assert.deepEqual(
      [found[0]!.span.startLine, found[0]!.span.startColumn],
      editorPosition(text, "__shfl_xor"),
    );
  });

  it("the CLI reports line 4 of a \\r file", () => {
    writeFileSync(join(root, "mac.cu"), LINES.join("\r"));
    const r = runCli({ cwd: root }, "lint", "--no-gpu", "--arch", "sm_90", "--format", "json", "mac.cu");
    const f = (JSON.parse(r.stdout) as { rule: string; line: number; column: number }[]).find(
      (x) => x.rule === "deprecated-shuffle",
    );
    assert.deepEqual(f && [f.line, f.column], [4, 10]);
  });

  it("as edits arrive (the language server): typing \\n after a lone \\r, and \\r in a \\n file, give a whole-file lint's findings", async () => {
    const parser = await cudaParser();
    // Editor-side documents and the changes they send, with rows as the editor counts them.
    let doc = TextDocument.create("file:///k.cu", "cuda-cpp", 1, LINES.join("\r"));
    const lint = new LintDocument(parser, doc.getText(), CLI_LIMITS);
    const edit = (offset: number, end: number, newText: string): void => {
      const s = doc.positionAt(offset);
      const e = doc.positionAt(end);
      const change: TextChange = {
        startOffset: offset,
        oldEndOffset: end,
        start: { row: s.line, column: s.character },
        oldEnd: { row: e.line, column: e.character },
        newText,
      };
      doc = TextDocument.update(doc, [{ range: { start: s, end: e }, text: newText }], doc.version + 1);
      lint.update(doc.getText(), [change]);
    };
    const check = async (): Promise<void> => {
      const out = lint.lint(OPTS);
      assert.equal(out.kind, "linted");
      const whole = await lintSource(doc.getText(), OPTS);
      assert.deepEqual(out.kind === "linted" && out.findings, whole);
      assert.deepEqual(
        shuffles(whole).map((f) => [f.span.startLine, f.span.startColumn]),
        [editorPosition(doc.getText(), "__shfl_xor")],
      );
    };
    try {
      await check();
      // "\n" typed after a lone "\r": "\r\n" is one line end, as the "\r" was; the "\r" now reads as "\r".
      const firstCr = doc.getText().indexOf("\r");
      edit(firstCr + 1, firstCr + 1, "\n");
      await check();
      // A "\r" typed at the end of line 2 (before its "\r"): one more line.
      const secondCr = doc.getText().indexOf("\r", firstCr + 2);
      edit(secondCr, secondCr, "\r");
      await check();
      // The "\n" deleted again: the first "\r" is lone once more.
      edit(firstCr + 1, firstCr + 2, "");
      await check();
    } finally {
      lint.dispose();
    }
  });
});
