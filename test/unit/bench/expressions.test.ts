import { test } from "node:test";
import assert from "node:assert/strict";
import { evaluate, evaluateInt, parseExpressionString, type Value } from "../../../server/bench/expressions";
import { SpecError } from "../../../server/bench/specLexer";

const env = new Map<string, Value>([
  ["rows", { value: 1024, float: false }],
  ["cols", { value: 3000, float: false }],
  ["scale", { value: 0.5, float: true }],
]);
const ev = (s: string) => evaluate(parseExpressionString(s), env).value;

test("precedence and C integer semantics", () => {
  assert.equal(ev("2*rows*cols*2 + cols*2"), 2 * 1024 * 3000 * 2 + 3000 * 2);
  assert.equal(ev("7/2"), 3, "integer / truncates like C");
  assert.equal(ev("-7/2"), -3, "towards zero");
  assert.equal(ev("-7//2"), -4, "// floors");
  assert.equal(ev("7.0/2"), 3.5);
  assert.equal(ev("cols*scale"), 1500);
  assert.equal(ev("(rows + 255) / 256"), 4);
  assert.equal(ev("cdiv(cols, 256)"), 12);
  assert.equal(ev("1 << 20"), 1048576);
  assert.equal(ev("1 << 4 + 1"), 32, "shift binds looser than +");
  assert.equal(ev("rows >> 2"), 256);
  assert.equal(ev("min(rows, cols, 5000)"), 1024);
  assert.equal(ev("pow(2, 10)"), 1024);
  assert.equal(ev("cols % 7"), 3000 % 7);
  assert.equal(ev("1_000_000"), 1e6);
  assert.equal(ev("0x100"), 256);
  assert.equal(ev("1e-6"), 1e-6);
});

function throwsAt(s: string, message: RegExp, startColumn: number, endColumn: number) {
  assert.throws(
    () => evaluate(parseExpressionString(s), env),
    (e: unknown) => {
      assert.ok(e instanceof SpecError, `expected a SpecError for ${s}`);
      assert.match(e.message, message);
      assert.equal(e.span.startColumn, startColumn, `start of ${s}`);
      assert.equal(e.span.endColumn, endColumn, `end of ${s}`);
      return true;
    },
  );
}

test("errors point at the offending part", () => {
  throwsAt("rows * colz", /unknown variable 'colz'/, 7, 11);
  throwsAt("rows / (cols - 3000)", /division by zero/, 8, 19);
  throwsAt("cdiv(rows, 0)", /division by zero/, 11, 12);
  throwsAt("rows +", /expected an expression/, 6, 6);
  throwsAt("process(1)", /unknown function 'process'/, 0, 7);
  throwsAt("min()", /min\(\) takes 1 to 16 arguments, got 0/, 0, 5);
  throwsAt("rows $ 2", /unexpected character '\$'/, 5, 6);
  throwsAt("(rows", /expected '\)'/, 5, 5);
  throwsAt("12ab", /'12ab' is not a number/, 0, 4);
  throwsAt("1 << scale", /needs integers/, 0, 10);
});

test("there is no way out of the arithmetic", () => {
  // Anything that is not a number, a known variable or a listed function is rejected, never run.
  for (const s of ["constructor", "globalThis.process", "require('fs')", "x => 1", "`a`"])
    assert.throws(() => evaluate(parseExpressionString(s), env), SpecError, s);
});

test("evaluateInt enforces integers and ranges", () => {
  assert.equal(evaluateInt(parseExpressionString("cdiv(rows*cols, 256)"), env, "grid.x", 1), 12000);
  assert.throws(
    () => evaluateInt(parseExpressionString("cols*scale/7"), env, "grid.x", 1),
    /grid.x must be an integer, got 214.28/,
  );
  assert.throws(
    () => evaluateInt(parseExpressionString("rows - 1024"), env, "block.x", 1, 1024),
    /block.x is 0, below the minimum 1/,
  );
  assert.throws(
    () => evaluateInt(parseExpressionString("rows*2"), env, "block.x", 1, 1024),
    /block.x is 2048, above the maximum 1024/,
  );
});

test("an expression nested past 256 levels is an error at its place, not a stack overflow (issue 26, item 7)", () => {
  const deep = (n: number) => `${"(".repeat(n)}1${")".repeat(n)}`;
  assert.equal(ev(deep(200)), 1);
  assert.equal(ev(`${"-".repeat(200)}1`), 1);
  for (const text of [
    deep(100_000),
    Array(100_000).fill("1").join("+"),
    `${"-".repeat(100_000)}1`,
    `min(${deep(300)})`,
  ]) {
    assert.throws(
      () => parseExpressionString(text),
      (e: unknown) =>
        e instanceof SpecError && /nests deeper than 256 levels/.test(e.message) && e.span.startColumn > 0,
      text.slice(0, 20),
    );
  }
});
