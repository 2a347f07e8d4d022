// The language server process: started by the extension over IPC, or by `cuda-kernel-dev lsp --stdio`.
import { createConnection, ProposedFeatures, TextDocuments, TextDocumentSyncKind } from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";

const connection = createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);

connection.onInitialize(() => ({
  capabilities: {
    textDocumentSync: TextDocumentSyncKind.Incremental,
  },
  serverInfo: { name: "cuda-kernel-dev" },
}));

documents.listen(connection);
connection.listen();
