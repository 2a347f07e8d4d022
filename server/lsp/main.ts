// The language server process: started by the extension over IPC (built as dist/server.js), or by
// `cuda-kernel-dev lsp --stdio`. Importing this module starts it; the transport comes from the command
// line (--node-ipc or --stdio). It runs no program (it does not import the launcher:
// test/unit/process/trust.test.ts), so it installs no launch policy: one it reached anyway is refused.
//
// Over stdio the messages are framed by Content-Length headers. A frame the reader cannot read (no
// Content-Length, a value that is not a number) leaves the stream out of step for good: the server says
// so on stderr and exits 1, so the client sees it gone and restarts it, instead of a server that
// silently never answers again. The end of stdin ends the server too (0 after `shutdown`, else 1).
import {
  createConnection,
  ProposedFeatures,
  StreamMessageReader,
  StreamMessageWriter,
  type Connection,
} from "vscode-languageserver/node";
import { startServer } from "./server";

function stdioConnection(): { connection: Connection; reader: StreamMessageReader } {
  const reader = new StreamMessageReader(process.stdin);
  // stdout carries the protocol: anything printed goes to stderr (as the library does for --stdio).
  for (const m of ["log", "info", "warn", "debug", "trace"] as const) console[m] = console.error;
  return {
    connection: createConnection(ProposedFeatures.all, reader, new StreamMessageWriter(process.stdout)),
    reader,
  };
}

if (process.argv.includes("--stdio")) {
  const { connection, reader } = stdioConnection();
  reader.onError((err) => {
    process.stderr.write(
      `cuda-kernel-dev lsp: unreadable message from the client, exiting: ${err.message}\n`,
    );
    process.exit(1);
  });
  const ctx = startServer(connection);
  reader.onClose(() => process.exit(ctx.shutDown ? 0 : 1));
} else startServer(createConnection(ProposedFeatures.all));
