// Drives the real server over stdio with a real LSP client: open, edit, diagnostics, code action, hover,
// symbols, settings changes and close.
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { TextDocument } from "vscode-languageserver-textdocument";
import type { CodeAction, DocumentSymbol, Hover, TextEdit } from "vscode-languageserver-protocol/node";
import { lspForFile, type LspSession } from "./lspClient";

const SRC = `__device__ float warp_sum(float v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_down(v, o);
  return v;
}
__global__ void reduce(const float* x, float* out) {
  float v = warp_sum(x[threadIdx.x]);
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}
`;

// The settings the client answers with; a test that changes them has them put back after it.
const SETTINGS = { targets: ["sm_75", "sm_90"] };
let lsp: LspSession;

lspForFile({ settings: SETTINGS, initializationOptions: { lintDebounceMs: 20 } }, (s) => (lsp = s));

const shuffleFindings = (d: { code?: string | number }[]): number =>
  d.filter((x) => x.code === "deprecated-shuffle").length;

/** A document the test opened: its own URI, so no test reads another's diagnostics or edits. */
class OpenDoc {
  constructor(
    readonly uri: string,
    public doc: TextDocument,
  ) {}

  async edit(
    start: { line: number; character: number },
    end: { line: number; character: number },
    text: string,
  ): Promise<void> {
    const change = { range: { start, end }, text };
    this.doc = TextDocument.update(this.doc, [change], this.doc.version + 1);
    await lsp.conn.sendNotification("textDocument/didChange", {
      textDocument: { uri: this.uri, version: this.doc.version },
      contentChanges: [change],
    });
  }

  async close(): Promise<void> {
    opened.delete(this);
    await lsp.conn.sendNotification("textDocument/didClose", { textDocument: { uri: this.uri } });
  }
}

const opened = new Set<OpenDoc>();
let docs = 0;

/** Opens `text` under a fresh URI and waits for its first diagnostics. */
async function open(text = SRC): Promise<OpenDoc> {
  const uri = pathToFileURL(join(__dirname, "nonexistent-project", `reduce-${++docs}.cu`)).href;
  const d = new OpenDoc(uri, TextDocument.create(uri, "cuda-cpp", 1, text));
  opened.add(d);
  await lsp.conn.sendNotification("textDocument/didOpen", {
    textDocument: { uri, languageId: "cuda-cpp", version: 1, text },
  });
  await lsp.waitForDiagnostics(uri, (_, version) => version === 1);
  return d;
}

afterEach(async () => {
  for (const d of [...opened]) await d.close();
  if (lsp.settings !== SETTINGS) {
    lsp.settings = SETTINGS;
    await lsp.conn.sendNotification("workspace/didChangeConfiguration", { settings: null });
  }
});

/** SRC with a second deprecated call on line 2, inside warp_sum. */
const SRC_TWO_SHUFFLES = SRC.replace("  return v;\n", "  v = __shfl_xor(v, 1);\n  return v;\n");

test("open: diagnostics arrive with the rule id, a link to its doc, and the targets notification", async () => {
  const { uri } = await open();
  const diags = await lsp.waitForDiagnostics(uri, (d) => shuffleFindings(d) === 1);
  const d = diags.find((x) => x.code === "deprecated-shuffle")!;
  assert.deepEqual(d.range, { start: { line: 1, character: 39 }, end: { line: 1, character: 50 } });
  assert.equal(d.severity, 1);
  assert.equal(d.source, "cuda-kernel-dev");
  assert.ok(d.codeDescription, "codeDescription links the rule doc");
  assert.match(d.codeDescription.href, /deprecated-shuffle\.md$/);
  assert.ok(existsSync(fileURLToPath(d.codeDescription.href)));
  const { context, ...targets } = await lsp.waitFor("targets", () => lsp.targets.get(uri));
  assert.deepEqual(targets, { uri, archs: ["sm_75", "sm_90"], source: "setting" });
  // The build context, for the status item's tooltip.
  assert.match(
    (context ?? []).join("\n"),
    /^Targets: sm_75, sm_90 from the cudaKernelDev\.targets setting$/m,
  );
  const health = await lsp.waitFor("server status", () => lsp.status[0]);
  assert.equal(health.health, "ok");
  assert.match(health.message, /\d+ rules/);
});

test("edit: an incremental change updates the diagnostics for the new version", async () => {
  const d = await open();
  assert.equal(shuffleFindings(lsp.diagnostics.get(d.uri)!.diagnostics), 1);
  // Add a second deprecated call on a new line inside warp_sum.
  await d.edit({ line: 2, character: 0 }, { line: 2, character: 0 }, "  v = __shfl_xor(v, 1);\n");
  assert.equal(d.doc.getText(), SRC_TWO_SHUFFLES);
  await lsp.waitForDiagnostics(
    d.uri,
    (ds, version) => version === d.doc.version && shuffleFindings(ds) === 2,
  );
});

test("code action: the quick fix's edit applied to the text clears that diagnostic", async () => {
  const d = await open(SRC_TWO_SHUFFLES);
  const { uri } = d;
  const diags = lsp.diagnostics.get(uri)!.diagnostics.filter((x) => x.code === "deprecated-shuffle");
  const target = diags.find((x) => x.range.start.line === 2)!;
  const actions: CodeAction[] = await lsp.conn.sendRequest("textDocument/codeAction", {
    textDocument: { uri },
    range: target.range,
    context: { diagnostics: [target] },
  });
  const fix = actions.find((a) => a.isPreferred);
  assert.ok(fix, `a preferred fix among ${actions.map((a) => a.title).join(", ")}`);
  assert.ok(actions.some((a) => a.title === "Disable deprecated-shuffle for this line"));
  const edits: TextEdit[] = fix.edit!.changes![uri]!;
  const newText = TextDocument.applyEdits(d.doc, edits);
  assert.equal(newText.split("\n")[2], "  v = __shfl_xor_sync(0xffffffff, v, 1);");
  // Send it the way an editor does: one incremental change per edit, last first so ranges stay valid.
  for (const e of [...edits].sort((a, b) => d.doc.offsetAt(b.range.start) - d.doc.offsetAt(a.range.start)))
    await d.edit(e.range.start, e.range.end, e.newText);
  assert.equal(d.doc.getText(), newText);
  await lsp.waitForDiagnostics(uri, (ds, version) => version === d.doc.version && shuffleFindings(ds) === 1);
});

test("settings change: a severity override applies after didChangeConfiguration", async () => {
  const { uri } = await open();
  assert.equal(
    lsp.diagnostics.get(uri)!.diagnostics.find((x) => x.code === "deprecated-shuffle")!.severity,
    1,
  );
  lsp.settings = { targets: ["sm_80"], lint: { severity: { "deprecated-shuffle": "hint" } } };
  await lsp.conn.sendNotification("workspace/didChangeConfiguration", { settings: null });
  await lsp.waitForDiagnostics(uri, (d) =>
    d.some((x) => x.code === "deprecated-shuffle" && x.severity === 4),
  );
  await lsp.waitFor("new targets", () => (lsp.targets.get(uri)?.archs[0] === "sm_80" ? true : undefined));
});

test("code action: 'Disable RULE for this line' inserts a suppression comment that silences it", async () => {
  const d = await open();
  const { uri } = d;
  const target = lsp.diagnostics.get(uri)!.diagnostics.find((x) => x.code === "deprecated-shuffle")!;
  const actions: CodeAction[] = await lsp.conn.sendRequest("textDocument/codeAction", {
    textDocument: { uri },
    range: target.range,
    context: { diagnostics: [target] },
  });
  const suppress = actions.find((a) => a.title === "Disable deprecated-shuffle for this line")!;
  const [e] = suppress.edit!.changes![uri]!;
  assert.equal(e!.newText, "  // cuda-kernel-dev-disable-next-line deprecated-shuffle\n");
  await d.edit(e!.range.start, e!.range.end, e!.newText);
  await lsp.waitForDiagnostics(uri, (ds, version) => version === d.doc.version && shuffleFindings(ds) === 0);
});

test("hover and document symbols", async () => {
  const { uri } = await open();
  const hover: Hover | null = await lsp.conn.sendRequest("textDocument/hover", {
    textDocument: { uri },
    position: { line: 6, character: 5 }, // in __syncthreads
  });
  assert.ok(hover && typeof hover.contents === "object" && "value" in hover.contents);
  assert.match(hover.contents.value, /void __syncthreads\(\)/);
  const symbols: DocumentSymbol[] = await lsp.conn.sendRequest("textDocument/documentSymbol", {
    textDocument: { uri },
  });
  assert.deepEqual(
    symbols.map((s) => [s.name, s.detail]),
    [
      ["warp_sum", "__device__"],
      ["reduce", "__global__"],
    ],
  );
});

test("close: diagnostics are cleared; a broken request does not take the server down", async () => {
  const d = await open();
  const { uri } = d;
  assert.equal(shuffleFindings(lsp.diagnostics.get(uri)!.diagnostics), 1);
  await d.close();
  await lsp.waitForDiagnostics(uri, (ds) => ds.length === 0);
  const none: unknown = await lsp.conn.sendRequest("textDocument/hover", {
    textDocument: { uri },
    position: { line: 0, character: 0 },
  });
  assert.equal(none, null);
  const odd: unknown = await lsp.conn.sendRequest("textDocument/codeAction", {
    textDocument: { uri: "file:///nope.cu" },
    range: null,
    context: null,
  });
  assert.deepEqual(odd, []);
  assert.equal(lsp.proc.exitCode, null);
});

test("a 2 MB document is not parsed as you type: one information diagnostic says so, and the server keeps answering", async () => {
  const uri = pathToFileURL(join(__dirname, "nonexistent-project", "huge.cu")).href;
  const text = SRC.repeat(Math.ceil((2 * 1024 * 1024) / SRC.length));
  await lsp.conn.sendNotification("textDocument/didOpen", {
    textDocument: { uri, languageId: "cuda-cpp", version: 1, text },
  });
  const diags = await lsp.waitForDiagnostics(uri, (d) => d.length > 0);
  assert.equal(diags.length, 1);
  assert.equal(diags[0]!.code, "lint-skipped");
  assert.equal(diags[0]!.severity, 3);
  const message = diags[0]!.message;
  assert.match(typeof message === "string" ? message : message.value, /2\.0 MB is above the 1\.0 MB limit/);
  // Hover still works from the text alone.
  const hover: Hover | null = await lsp.conn.sendRequest("textDocument/hover", {
    textDocument: { uri },
    position: { line: 6, character: 5 },
  });
  assert.ok(hover);
  await lsp.conn.sendNotification("textDocument/didClose", { textDocument: { uri } });
});
