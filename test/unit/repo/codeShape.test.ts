// The tree's shape rules (README, "Development"): no source file over 450 lines and no function over 100,
// so each file is named for what it holds and each function reads in one screen.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import ts from "typescript";

const ROOT = join(__dirname, "..", "..", "..");
const MAX_FILE_LINES = 450;
const MAX_FUNCTION_LINES = 100;

/** Every TypeScript/JavaScript source git tracks or would track (untracked, not ignored). */
function sources(): string[] {
  const out = execFileSync(
    "git",
    ["ls-files", "--cached", "--others", "--exclude-standard", "*.ts", "*.mts", "*.mjs"],
    {
      cwd: ROOT,
      encoding: "utf8",
    },
  );
  return out.split("\n").filter((f) => f && !f.startsWith("test/fixtures/"));
}

/** `file:line: n lines` for each function (declaration, method, arrow, expression) over the limit. */
export function longFunctions(file: string, text: string, max: number): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) && "body" in n && n.body) {
      const first = sf.getLineAndCharacterOfPosition(n.getStart()).line;
      const lines = sf.getLineAndCharacterOfPosition(n.getEnd()).line - first + 1;
      if (lines > max) out.push(`${file}:${first + 1}: ${lines} lines`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

test(`no source file over ${MAX_FILE_LINES} lines, no function over ${MAX_FUNCTION_LINES}`, () => {
  const files = sources();
  assert.ok(files.length > 100, `found only ${files.length} sources`);
  const problems: string[] = [];
  for (const f of files) {
    const text = readFileSync(join(ROOT, f), "utf8");
    const lines = text.split("\n").length;
    if (lines > MAX_FILE_LINES) problems.push(`${f}: ${lines} lines`);
    problems.push(...longFunctions(f, text, MAX_FUNCTION_LINES));
  }
  assert.deepEqual(problems, []);
});

test("the function measure counts arrows, methods and declarations", () => {
  const body = Array.from({ length: 101 }, (_, i) => `  x += ${i};`).join("\n");
  const text = `function a() {\n${body}\n}\nconst b = () => {\n${body}\n};\nclass C { m() {\n${body}\n} }\n`;
  assert.deepEqual(
    longFunctions("t.ts", text, 100).map((p) => p.split(":")[1]),
    ["1", String(104), String(207)],
  );
});
