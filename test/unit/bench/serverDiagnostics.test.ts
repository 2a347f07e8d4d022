// The spec diagnostics reach the editor through the real language server (over stdio).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { startLsp, type LspSession } from "../../integration/lspClient";

const URI = pathToFileURL(join(__dirname, "nowhere", "spec.cu")).href;
const SRC = [
  "// @bench n=[1024] grid=(n/256) block=(256)",
  "// @bench arg x: f32[n] randn",
  "// @bench arg s: f32 = 2 *",
  "__global__ void scale(float* x, float s) { x[threadIdx.x] *= s; }",
  "",
].join("\n");

let lsp: LspSession;
before(async () => {
  lsp = await startLsp({ settings: { targets: ["sm_90"] }, initializationOptions: { lintDebounceMs: 0 } });
});
after(async () => {
  await lsp.close();
});

test("a spec error is published as a diagnostic at its place, and clears when fixed", async () => {
  await lsp.conn.sendNotification("textDocument/didOpen", {
    textDocument: { uri: URI, languageId: "cuda-cpp", version: 1, text: SRC },
  });
  const diags = await lsp.waitForDiagnostics(URI, (d) => d.some((x) => x.code === "bench-spec"));
  const d = diags.find((x) => x.code === "bench-spec")!;
  assert.equal(d.message, "expected an expression");
  assert.deepEqual(d.range, { start: { line: 2, character: 26 }, end: { line: 2, character: 26 } });
  assert.equal(d.severity, 1);
  const fixed = SRC.replace("= 2 *", "= 2");
  await lsp.conn.sendNotification("textDocument/didChange", {
    textDocument: { uri: URI, version: 2 },
    contentChanges: [{ text: fixed }],
  });
  await lsp.waitForDiagnostics(
    URI,
    (ds, version) => version === 2 && !ds.some((x) => x.code === "bench-spec"),
  );
});
