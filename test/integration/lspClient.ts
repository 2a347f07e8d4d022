// A real LSP client over stdio for tests and benchmarks: spawns `cuda-kernel-dev lsp --stdio` and keeps
// what the server publishes so tests can wait for a state (polling, never sleeping a fixed time).
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { after, before } from "node:test";
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
} from "vscode-languageserver-protocol/node";
import {
  serverStatusNotification,
  targetsNotification,
  type InitializationOptions,
  type ServerStatusParams,
  type TargetsParams,
} from "../../server/protocol";

export const REPO = join(__dirname, "..", "..");

export interface LspSession {
  conn: ProtocolConnection;
  proc: ChildProcess;
  /** Latest diagnostics per URI, with the version they were computed for. */
  diagnostics: Map<string, PublishDiagnosticsParams>;
  /** How many times diagnostics were published per URI. */
  publishes: Map<string, number>;
  targets: Map<string, TargetsParams>;
  /** The server's health notifications, in order. */
  status: ServerStatusParams[];
  /** What the server answers to workspace/configuration (the `cudaKernelDev` section). */
  settings: unknown;
  stderr: string[];
  waitFor<T>(what: string, probe: () => T | undefined, timeoutMs?: number): Promise<T>;
  waitForDiagnostics(uri: string, ok: (d: Diagnostic[], version?: number) => boolean): Promise<Diagnostic[]>;
  /** Resolves the moment diagnostics of `uri` for `version` arrive (for latency figures: no polling). */
  published(uri: string, version: number): Promise<void>;
  close(): Promise<void>;
}

export interface LspOptions {
  settings?: unknown;
  initializationOptions?: InitializationOptions;
  /** Replaces the default (the CLI from source), e.g. ["dist/server.js", "--stdio"]. */
  args?: string[];
  rootUri?: string | null;
}

/** One server for a test file: started before its tests, closed after them; `use` receives the session. */
export function lspForFile(opts: LspOptions, use: (session: LspSession) => void): void {
  let session: LspSession | undefined;
  before(async () => {
    session = await startLsp(opts);
    use(session);
  });
  after(async () => {
    await session?.close();
  });
}

/** Starts the server (from source through tsx, or a given bundle) and initializes it. */
export async function startLsp(opts: LspOptions = {}): Promise<LspSession> {
  const args = opts.args ?? ["--import", "tsx", join(REPO, "server/cli/main.ts"), "lsp", "--stdio"];
  const proc = spawn(process.execPath, args, { cwd: REPO, stdio: ["pipe", "pipe", "pipe"] });
  const conn = createProtocolConnection(
    new StreamMessageReader(proc.stdout),
    new StreamMessageWriter(proc.stdin),
  );
  const waiting = new Set<(p: PublishDiagnosticsParams) => void>();
  const session: LspSession = {
    conn,
    proc,
    diagnostics: new Map(),
    publishes: new Map(),
    targets: new Map(),
    status: [],
    settings: opts.settings ?? {},
    stderr: [],
    async waitFor(what, probe, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const v = probe();
        if (v !== undefined) return v;
        if (proc.exitCode !== null)
          throw new Error(
            `server exited (${proc.exitCode}) while waiting for ${what}: ${session.stderr.join("")}`,
          );
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    waitForDiagnostics(uri, ok) {
      return session.waitFor(`diagnostics of ${uri}`, () => {
        const p = session.diagnostics.get(uri);
        return p && ok(p.diagnostics, p.version) ? p.diagnostics : undefined;
      });
    },
    published(uri, version) {
      return new Promise((resolve) => {
        const check = (p: PublishDiagnosticsParams): void => {
          if (p.uri !== uri || p.version !== version) return;
          waiting.delete(check);
          resolve();
        };
        waiting.add(check);
      });
    },
    async close() {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once("exit", r));
        try {
          await conn.sendRequest("shutdown");
          await conn.sendNotification("exit");
        } catch {
          proc.kill();
        }
        await exited;
      }
      conn.dispose();
    },
  };
  proc.stderr.on("data", (d: Buffer) => session.stderr.push(d.toString()));
  conn.onNotification("textDocument/publishDiagnostics", (p: PublishDiagnosticsParams) => {
    session.diagnostics.set(p.uri, p);
    session.publishes.set(p.uri, (session.publishes.get(p.uri) ?? 0) + 1);
    for (const w of [...waiting]) w(p);
  });
  conn.onNotification(serverStatusNotification, (p) => {
    session.status.push(p);
  });
  conn.onNotification(targetsNotification, (p) => {
    session.targets.set(p.uri, p);
  });
  conn.onNotification("window/logMessage", (p: { message: string }) => {
    session.stderr.push(`${p.message}\n`);
  });
  conn.onRequest("workspace/configuration", (p: { items: unknown[] }) => p.items.map(() => session.settings));
  conn.onRequest("client/registerCapability", () => null);
  conn.listen();
  await conn.sendRequest("initialize", {
    processId: process.pid,
    rootUri: opts.rootUri ?? null,
    capabilities: {
      workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true } },
    },
    initializationOptions: opts.initializationOptions ?? {},
  });
  await conn.sendNotification("initialized", {});
  return session;
}
