// The language server under hostile files: binary bytes saved as a .cu (NULs, invalid UTF-8, no
// newlines), one enormous line, and a huge file edited a byte at a time. Requests at random
// positions on them all get answers, the server never exits, and a normal file opened afterwards
// still gets its diagnostics.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { lspForFile, type LspSession } from "./lspClient";

let lsp: LspSession;
const uri = (name: string): string => pathToFileURL(join(__dirname, "nonexistent-project", name)).href;

lspForFile(
  { settings: { targets: ["sm_90"] }, initializationOptions: { lintDebounceMs: 20 } },
  (s) => (lsp = s),
);

async function open(u: string, text: string): Promise<void> {
  await lsp.conn.sendNotification("textDocument/didOpen", {
    textDocument: { uri: u, languageId: "cuda-cpp", version: 1, text },
  });
}

/** Hover, code actions and symbols at seeded positions; every one must be answered. */
async function poke(u: string, lines: number, width: number, seed: number): Promise<void> {
  let s = seed;
  const next = (n: number): number => ((s = (s * 1103515245 + 12345) % 2 ** 31), s % Math.max(1, n));
  for (let i = 0; i < 30; i++) {
    const position = { line: next(lines + 2), character: next(width + 5) };
    await lsp.conn.sendRequest("textDocument/hover", { textDocument: { uri: u }, position });
    await lsp.conn.sendRequest("textDocument/codeAction", {
      textDocument: { uri: u },
      range: { start: position, end: position },
      context: { diagnostics: [] },
    });
  }
  await lsp.conn.sendRequest("textDocument/documentSymbol", { textDocument: { uri: u } });
}

test("a binary file opened as CUDA: answered, no crash", async () => {
  const bytes = randomBytes(256 * 1024);
  bytes[100] = 0;
  const text = bytes.toString("latin1") + "\u0000\uFFFD\uD800"; // NULs, control bytes, a lone surrogate
  const u = uri("blob.cu");
  await open(u, text);
  await lsp.waitForDiagnostics(u, () => true);
  await poke(u, text.split("\n").length, 4000, 7);
  assert.equal(lsp.proc.exitCode, null);
});

test("one 3 MB line: answered, no crash", async () => {
  const text = "__global__ void k(float* x) { x[threadIdx.x] = 1.0f; } ".repeat(55_000);
  const u = uri("oneline.cu");
  await open(u, text);
  await lsp.waitForDiagnostics(u, () => true);
  await poke(u, 1, text.length, 11);
  assert.equal(lsp.proc.exitCode, null);
});

test("a file just under the size limit edited a byte at a time stays answered", async () => {
  const body = "__global__ void k(float* x) {\n  x[threadIdx.x] = __shfl_down(x[0], 1);\n}\n";
  const text = body.repeat(Math.floor((1000 * 1024) / body.length));
  const u = uri("near-limit.cu");
  await open(u, text);
  for (let v = 2; v < 12; v++) {
    const line = (v * 997) % 1000;
    const change = { range: { start: { line, character: 0 }, end: { line, character: 0 } }, text: "\u0000" };
    await lsp.conn.sendNotification("textDocument/didChange", {
      textDocument: { uri: u, version: v },
      contentChanges: [change],
    });
  }
  await lsp.waitForDiagnostics(u, (_, version) => version === undefined || version >= 11);
  await poke(u, 10_000, 40, 13);
  assert.equal(lsp.proc.exitCode, null);
});

test("after all that, a normal file still gets its diagnostics", async () => {
  const u = uri("normal.cu");
  await open(u, "__global__ void k(float* x) {\n  x[0] = __shfl_down(x[0], 1);\n}\n");
  const d = await lsp.waitForDiagnostics(u, (ds) => ds.some((x) => x.code === "deprecated-shuffle"));
  assert.ok(d.length >= 1);
  assert.equal(lsp.proc.exitCode, null);
});
