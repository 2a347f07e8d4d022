// The language server: one context shared by the features, each in its own file with register(ctx).
// main.ts starts it on the process's connection; tests may start it on any connection.
import { VERSION } from "../version";
import { ErrorCodes, ResponseError, type Connection } from "vscode-languageserver/node";
import * as benchSpecDiagnostics from "./benchSpecDiagnostics";
import * as codeActions from "./codeActions";
import { ServerContext } from "./context";
import { SOURCE } from "./convert";
import * as diagnostics from "./diagnostics";
import * as documentContext from "./documentContext";
import * as documents from "./documents";
import * as documentSymbols from "./documentSymbols";
import * as hover from "./hover";

export function startServer(connection: Connection): ServerContext {
  const ctx = new ServerContext(connection);
  for (const feature of [
    documents,
    documentContext,
    diagnostics,
    benchSpecDiagnostics,
    codeActions,
    hover,
    documentSymbols,
  ])
    feature.register(ctx);

  connection.onInitialize((params) => {
    ctx.initialize(params);
    return { capabilities: ctx.capabilities, serverInfo: { name: SOURCE, version: VERSION } };
  });
  connection.onInitialized(() => ctx.markInitialized());
  connection.onShutdown(() => {
    const refused = ctx.refusal();
    if (refused) return refused;
    ctx.shutDown = true;
    ctx.onShutdown.fire();
  });
  // Methods no feature handles: refused after shutdown, unknown before.
  connection.onRequest(
    (method) => ctx.refusal() ?? new ResponseError(ErrorCodes.MethodNotFound, `unhandled method ${method}`),
  );
  connection.listen();
  return ctx;
}
