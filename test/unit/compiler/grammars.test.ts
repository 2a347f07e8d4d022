// The PTX and SASS grammars on whole real compiler outputs (the tmgrammar tests in test/grammar/ pin
// single lines): every instruction of every function tokenizes as an instruction with its modifiers,
// and registers as registers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as oniguruma from "vscode-oniguruma";
import { INITIAL, Registry, parseRawGrammar, type IGrammar, type IToken } from "vscode-textmate";

const root = join(__dirname, "../../..");
const fixtures = join(root, "test/fixtures/compiler");

async function loadGrammar(scope: string, file: string): Promise<IGrammar> {
  const wasm = readFileSync(join(root, "node_modules/vscode-oniguruma/release/onig.wasm"));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (s: string[]) => new oniguruma.OnigScanner(s),
      createOnigString: (s: string) => new oniguruma.OnigString(s),
    }),
    loadGrammar: (name: string) =>
      Promise.resolve(
        name === scope ? parseRawGrammar(readFileSync(join(root, "syntaxes", file), "utf8"), file) : null,
      ),
  });
  const g = await registry.loadGrammar(scope);
  assert.ok(g, `grammar ${scope}`);
  return g;
}

function tokenizeAll(
  g: IGrammar,
  text: string,
): { line: string; tokens: { text: string; scopes: string[] }[] }[] {
  let state = INITIAL;
  return text.split("\n").map((line) => {
    const r = g.tokenizeLine(line, state);
    state = r.ruleStack;
    return {
      line,
      tokens: r.tokens.map((t: IToken) => ({ text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes })),
    };
  });
}

const has = (scopes: string[], prefix: string): boolean => scopes.some((s) => s.startsWith(prefix));

void test("PTX: every instruction line of real nvcc output (sm_80, sm_90) has its opcode, modifiers and registers scoped", async () => {
  const g = await loadGrammar("source.ptx", "ptx.tmLanguage.json");
  const files = readdirSync(join(fixtures, "ptx"));
  assert.ok(files.length >= 2);
  let instructions = 0;
  for (const f of files) {
    for (const { line, tokens } of tokenizeAll(g, readFileSync(join(fixtures, "ptx", f), "utf8"))) {
      const m = /^\s*(?:\{\s*)?(?:@!?%\w+\s+)?([a-z][a-z0-9_]*)((?:\.[\w:]+)*)[\s;]/.exec(line);
      if (!m || line.trimStart().startsWith("//")) continue;
      instructions++;
      const op = tokens.find((t) => t.text === m[1]);
      assert.ok(op && has(op.scopes, "keyword.other.instruction.ptx"), `${f}: opcode of "${line.trim()}"`);
      for (const suffix of (m[2] ?? "").split(".").filter(Boolean))
        assert.ok(
          tokens.some((t) => t.text === `.${suffix}` && has(t.scopes, "storage.type.suffix.ptx")),
          `${f}: .${suffix} in "${line.trim()}"`,
        );
      for (const t of tokens.filter((x) => /^%(?:r|rd|f|fd|p|rs|h)\d+$/.test(x.text)))
        assert.ok(
          has(t.scopes, "variable.other.register.ptx") || has(t.scopes, "variable.other.predicate.ptx"),
          `${f}: ${t.text} in "${line.trim()}"`,
        );
    }
  }
  assert.ok(instructions > 500, `${instructions} instructions`);
});

void test("SASS: every instruction of real cuobjdump -sass and nvdisasm -g -c output (sm_90) is scoped", async () => {
  const g = await loadGrammar("source.sass-cuda", "sass.tmLanguage.json");
  const files = readdirSync(join(fixtures, "sass"));
  assert.ok(files.length >= 3);
  let instructions = 0;
  for (const f of files) {
    for (const { line, tokens } of tokenizeAll(g, readFileSync(join(fixtures, "sass", f), "utf8"))) {
      const m = /^\s*\/\*[0-9a-f]{4,}\*\/\s*(?:@!?U?P[0-6T]\s+)?([A-Z][A-Z0-9_]*)((?:\.[A-Z0-9_]+)*)/.exec(
        line,
      );
      if (!m) continue;
      instructions++;
      const op = tokens.find((t) => t.text === m[1]);
      assert.ok(op && has(op.scopes, "keyword.other.instruction.sass"), `${f}: opcode of "${line.trim()}"`);
      for (const suffix of (m[2] ?? "").split(".").filter(Boolean))
        assert.ok(
          tokens.some((t) => t.text === `.${suffix}` && has(t.scopes, "storage.type.suffix.sass")),
          `${f}: .${suffix} in "${line.trim()}"`,
        );
      for (const t of tokens.filter((x) => /^(?:R\d+|RZ|UR\d+|URZ|P[0-6]|PT)$/.test(x.text) && x !== op))
        assert.ok(
          has(t.scopes, "variable.other.register.sass") || has(t.scopes, "variable.other.predicate.sass"),
          `${f}: ${t.text} in "${line.trim()}"`,
        );
      const encoding = /\/\* 0x[0-9a-f]{16} \*\//.exec(line);
      if (encoding)
        assert.ok(tokens.some((t) => t.text === encoding[0] && has(t.scopes, "comment.block.encoding.sass")));
    }
  }
  assert.ok(instructions > 1000, `${instructions} instructions`);
});
