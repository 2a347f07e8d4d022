// The server's incremental path (LSP range edits -> TextDocument + tree.edit + reparse) must give the same
// findings as linting the final text from scratch, through hundreds of random edits.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { TextDocument } from "vscode-languageserver-textdocument";
import type { TextDocumentContentChangeEvent } from "vscode-languageserver-protocol/node";
import { buildFacts, resolveBuildContext } from "../../server/lint/buildContext";
import { lintSource } from "../../server/lint/lintDocument";
import { rules } from "../../server/rules/index";
import { lspForFile, REPO, type LspSession } from "./lspClient";

let lsp: LspSession;
lspForFile(
  {
    settings: { targets: ["sm_75", "sm_90"] },
    initializationOptions: { lintDebounceMs: 0 },
  },
  (s) => (lsp = s),
);

const SNIPPETS = [
  "__shfl_down(v, 1)",
  "<<<1, 100>>>",
  "\n",
  "}",
  "{",
  "__half h = a + b;",
  "😀",
  "// x",
  " ",
  ";",
  "__syncthreads();",
];

test("random incremental edits over LSP end in the same findings as a fresh lint of the final text", async () => {
  const uri = pathToFileURL(join(tmpdir(), "ckd-sync", "bad_conventions.cu")).href;
  let doc = TextDocument.create(
    uri,
    "cuda-cpp",
    1,
    readFileSync(join(REPO, "examples", "bad_conventions.cu"), "utf8"),
  );
  await lsp.conn.sendNotification("textDocument/didOpen", {
    textDocument: { uri, languageId: "cuda-cpp", version: 1, text: doc.getText() },
  });
  let seed = 12345;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (let i = 0; i < 300; i++) {
    // One to three changes per notification, each relative to the text after the previous one.
    const changes: TextDocumentContentChangeEvent[] = [];
    for (let k = 1 + rand(3); k > 0; k--) {
      const text = doc.getText();
      let start = rand(text.length + 1);
      let end = Math.min(text.length, start + rand(12));
      // Whole code points only, as editors send them.
      if (/[\uDC00-\uDFFF]/.test(text[start] ?? "")) start--;
      if (/[\uDC00-\uDFFF]/.test(text[end] ?? "")) end++;
      const change = {
        range: { start: doc.positionAt(start), end: doc.positionAt(Math.max(start, end)) },
        text: rand(3) === 0 ? "" : SNIPPETS[rand(SNIPPETS.length)]!,
      };
      doc = TextDocument.update(doc, [change], doc.version);
      changes.push(change);
    }
    doc = TextDocument.update(doc, [], doc.version + 1);
    await lsp.conn.sendNotification("textDocument/didChange", {
      textDocument: { uri, version: doc.version },
      contentChanges: changes,
    });
  }
  const published = await lsp.waitForDiagnostics(uri, (_d, version) => version === doc.version);
  // The server lints the file under its build context: here none (a temp folder, no build file), with the
  // targets the session's settings declare; the fresh lint is given the same, not the standalone build
  // that assumes every half switch.
  const build = {
    ...buildFacts(
      resolveBuildContext({ file: fileURLToPath(uri), stopAt: dirname(fileURLToPath(uri)), env: {} }),
    ),
    targets: "declared" as const,
  };
  const fresh = await lintSource(doc.getText(), {
    rules,
    targets: [75, 90],
    fileName: "bad_conventions.cu",
    build,
  });
  const key = (rule: unknown, l1: number, c1: number, l2: number, c2: number, message: unknown): string =>
    `${String(rule)} ${l1}:${c1}-${l2}:${c2} ${typeof message === "string" ? message : JSON.stringify(message)}`;
  assert.deepEqual(
    published.map((d) =>
      key(
        d.code,
        d.range.start.line,
        d.range.start.character,
        d.range.end.line,
        d.range.end.character,
        d.message,
      ),
    ),
    fresh.map((f) =>
      key(f.rule, f.span.startLine, f.span.startColumn, f.span.endLine, f.span.endColumn, f.message),
    ),
  );
  assert.ok(published.length > 0, "the mutated example still has findings to compare");
});
