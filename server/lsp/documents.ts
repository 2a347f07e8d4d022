// Open documents and incremental edits: the text the client sees, kept in step with its syntax tree so a
// reparse after an edit is incremental.
import { TextDocumentSyncKind, type TextDocumentContentChangeEvent } from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import type { TextChange } from "../lint/parser";
import type { OpenDocument, ServerContext } from "./context";

/** Applies LSP changes one by one, telling the syntax tree where each landed so the reparse is incremental. */
function applyChanges(
  entry: OpenDocument,
  changes: TextDocumentContentChangeEvent[],
  version: number,
): TextDocument {
  let doc = entry.doc;
  const edits: TextChange[] = [];
  let full = false;
  for (const change of changes) {
    if ("range" in change) {
      const startOffset = doc.offsetAt(change.range.start);
      const oldEndOffset = doc.offsetAt(change.range.end);
      edits.push({
        startOffset,
        oldEndOffset,
        // Clamped positions: the client may send columns past the line end.
        start: { row: doc.positionAt(startOffset).line, column: doc.positionAt(startOffset).character },
        oldEnd: { row: doc.positionAt(oldEndOffset).line, column: doc.positionAt(oldEndOffset).character },
        newText: change.text,
      });
    } else full = true;
    doc = TextDocument.update(doc, [change], version);
  }
  entry.lint?.update(doc.getText(), full ? undefined : edits);
  return doc;
}

/** Stops a document's pending lint and frees its syntax tree. */
function release(entry: OpenDocument | undefined): void {
  if (!entry) return;
  clearTimeout(entry.timer);
  entry.lint?.dispose();
}

export function register(ctx: ServerContext): void {
  const { connection, documents } = ctx;
  ctx.capabilities.textDocumentSync = { openClose: true, change: TextDocumentSyncKind.Incremental };

  connection.onDidOpenTextDocument((p) => {
    ctx.guard("didOpen", undefined, () => {
      const { uri, languageId, version, text } = p.textDocument;
      documents.get(uri)?.lint?.dispose();
      documents.set(uri, {
        doc: TextDocument.create(uri, languageId, version, text),
        findings: [],
        findingsVersion: -1,
        pausedRules: new Map(),
      });
      ctx.linter.schedule(uri, 0);
    });
  });

  connection.onDidChangeTextDocument((p) => {
    ctx.guard("didChange", undefined, () => {
      const entry = documents.get(p.textDocument.uri);
      if (!entry) return;
      entry.doc = applyChanges(entry, p.contentChanges, p.textDocument.version);
      ctx.linter.schedule(p.textDocument.uri, ctx.debounceMs);
    });
  });

  connection.onDidCloseTextDocument((p) => {
    ctx.guard("didClose", undefined, () => {
      const { uri } = p.textDocument;
      release(documents.get(uri));
      documents.delete(uri);
      ctx.onDidClose.fire(uri);
    });
  });

  ctx.onShutdown.event(() => {
    for (const entry of documents.values()) release(entry);
    documents.clear();
  });
}
