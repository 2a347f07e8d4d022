// The language server process: started by the extension over IPC (built as dist/server.js), or by
// `cuda-kernel-dev lsp --stdio`. Importing this module starts it; the transport comes from the command
// line (--node-ipc or --stdio).
import { createConnection, ProposedFeatures } from "vscode-languageserver/node";
import { startServer } from "./server";

startServer(createConnection(ProposedFeatures.all));
