// The language server over stdio against a misbehaving client: requests after `shutdown` are refused
// with InvalidRequest (as the protocol says), and a frame with a bad Content-Length ends the server
// with a message and a non-zero exit, so the client restarts it instead of waiting on it forever.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";

const REPO = join(__dirname, "..", "..", "..");
const TSX = pathToFileURL(join(REPO, "node_modules", "tsx", "dist", "loader.mjs")).href;

interface Server {
  proc: ChildProcess;
  send(raw: string): void;
  request(id: number, method: string, params?: unknown): void;
  /** The message answering `id`. */
  answer(id: number): Promise<{ result?: unknown; error?: { code: number; message: string } }>;
  exited: Promise<{ code: number | null; stderr: string }>;
}

function startServer(): Server {
  const proc = spawn(
    process.execPath,
    ["--import", TSX, join(REPO, "server/cli/main.ts"), "lsp", "--stdio"],
    {
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  let out = "";
  let stderr = "";
  const waiting = new Map<number, (m: never) => void>();
  const got = new Map<number, unknown>();
  proc.stdout.setEncoding("utf8").on("data", (d: string) => {
    out += d;
    for (
      let m = /Content-Length: (\d+)\r\n\r\n/.exec(out);
      m;
      m = /Content-Length: (\d+)\r\n\r\n/.exec(out)
    ) {
      const start = m.index + m[0].length;
      const len = Number(m[1]);
      if (Buffer.byteLength(out.slice(start)) < len) break;
      const msg = JSON.parse(out.slice(start, start + len)) as { id?: number };
      out = out.slice(start + len);
      if (typeof msg.id !== "number") continue;
      got.set(msg.id, msg);
      waiting.get(msg.id)?.(msg as never);
    }
  });
  proc.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    proc.on("exit", (code) => resolve({ code, stderr })),
  );
  const send = (raw: string): void => void proc.stdin.write(raw);
  const frame = (o: object): string => {
    const body = JSON.stringify({ jsonrpc: "2.0", ...o });
    return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  };
  return {
    proc,
    send,
    request: (id, method, params) => send(frame({ id, method, ...(params === undefined ? {} : { params }) })),
    answer: (id) =>
      got.has(id)
        ? Promise.resolve(got.get(id) as never)
        : new Promise((resolve) => waiting.set(id, resolve)),
    exited,
  };
}

const within = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([
    p,
    new Promise<T>((_, reject) =>
      setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms),
    ),
  ]);

const INIT = { processId: null, rootUri: null, capabilities: {} };

describe("the language server against a misbehaving client", () => {
  it("after shutdown, requests are answered InvalidRequest (-32600)", async () => {
    const s = startServer();
    try {
      s.request(1, "initialize", INIT);
      await within(s.answer(1), 30_000, "initialize");
      s.request(2, "shutdown");
      assert.equal((await within(s.answer(2), 10_000, "shutdown")).result, null);
      s.request(3, "textDocument/documentSymbol", { textDocument: { uri: "file:///k.cu" } });
      s.request(4, "textDocument/hover", {
        textDocument: { uri: "file:///k.cu" },
        position: { line: 0, character: 0 },
      });
      for (const id of [3, 4]) {
        const a = await within(s.answer(id), 10_000, `request ${id}`);
        assert.equal(a.error?.code, -32600, JSON.stringify(a));
      }
      s.send('Content-Length: 33\r\n\r\n{"jsonrpc":"2.0","method":"exit"}');
      assert.equal((await within(s.exited, 10_000, "exit")).code, 0);
    } finally {
      s.proc.kill("SIGKILL");
    }
  });

  it("a frame whose Content-Length is not a number: a message on stderr and exit 1, not a silent hang", async () => {
    const s = startServer();
    try {
      s.request(1, "initialize", INIT);
      await within(s.answer(1), 30_000, "initialize");
      s.send('Content-Length: abc\r\n\r\n{"jsonrpc":"2.0","id":2,"method":"shutdown"}');
      const { code, stderr } = await within(s.exited, 10_000, "the server's exit");
      assert.equal(code, 1);
      assert.match(stderr, /unreadable message from the client.*Content-Length/);
    } finally {
      s.proc.kill("SIGKILL");
    }
  });
});
