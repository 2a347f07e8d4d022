// startServer on an in-memory connection, in this process: the server needs no stdio or IPC of its own, so
// its features can be driven (and debugged) without spawning it.
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import {
  createProtocolConnection,
  PublishDiagnosticsNotification,
  StreamMessageReader,
  StreamMessageWriter,
  type PublishDiagnosticsParams,
} from "vscode-languageserver-protocol/node";
import { createConnection, ProposedFeatures } from "vscode-languageserver/node";
import { startServer } from "../../server/lsp/server";
import {
  machineGpuNotification,
  serverStatusNotification,
  targetsNotification,
  type TargetsParams,
} from "../../server/protocol";
import { rules } from "../../server/rules/index";

/** The server on an in-memory connection, initialized with `settings`; what it sends is collected. */
async function startInProcess(settings: unknown) {
  const [toServer, toClient] = [new PassThrough(), new PassThrough()];
  const server = createConnection(
    ProposedFeatures.all,
    new StreamMessageReader(toServer),
    new StreamMessageWriter(toClient),
  );
  startServer(server);
  const client = createProtocolConnection(
    new StreamMessageReader(toClient),
    new StreamMessageWriter(toServer),
  );
  const published: PublishDiagnosticsParams[] = [];
  const targets: TargetsParams[] = [];
  const ready = new Promise((resolve) => client.onNotification(serverStatusNotification, resolve));
  client.onNotification(PublishDiagnosticsNotification.type, (p) => {
    published.push(p);
  });
  client.onNotification(targetsNotification, (p) => {
    targets.push(p);
  });
  client.listen();
  await client.sendRequest("initialize", {
    processId: null,
    rootUri: null,
    capabilities: {},
    initializationOptions: { lintDebounceMs: 0, settings },
  });
  await client.sendNotification("initialized", {});
  const close = async (): Promise<void> => {
    await client.sendRequest("shutdown");
    client.dispose();
    server.dispose();
  };
  return { client, published, targets, status: await ready, close };
}

test("in process: open -> targets and diagnostics, close -> cleared", async () => {
  const { client, published, targets, status, close } = await startInProcess({ targets: ["sm_90"] });
  assert.deepEqual(status, {
    health: "ok",
    message: `cuda-kernel-dev language server: ${rules.length} rules`,
  });

  const uri = "untitled:k.cu";
  const text = "__global__ void k(float* x) { x[0] = __shfl_down(x[0], 1); }\n";
  await client.sendNotification("textDocument/didOpen", {
    textDocument: { uri, languageId: "cuda-cpp", version: 1, text },
  });
  for (let i = 0; i < 500 && published.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(
    published[0]?.diagnostics.map((d) => d.code),
    ["deprecated-shuffle"],
  );
  assert.deepEqual(
    targets.map((t) => ({ uri: t.uri, archs: t.archs, source: t.source })),
    [{ uri, archs: ["sm_90"], source: "setting" }],
  );
  assert.match(targets[0]?.context?.join("\n") ?? "", /^Build: no build file found$/m);

  await client.sendNotification("textDocument/didClose", { textDocument: { uri } });
  for (let i = 0; i < 500 && published.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(published[1], { uri, diagnostics: [] });
  await close();
});

test("in process: the machine's GPU from the client is assumed where no targets are declared", async () => {
  const { client, published, targets, close } = await startInProcess({});
  const uri = "untitled:bf16.cu";
  const text = [
    "#include <cuda_bf16.h>",
    "__global__ void k(__nv_bfloat16* x) { x[0] = __hadd(x[0], x[1]); }",
    "",
  ].join("\n");
  await client.sendNotification("textDocument/didOpen", {
    textDocument: { uri, languageId: "cuda-cpp", version: 1, text },
  });
  const codes = (i: number): unknown[] => published[i]?.diagnostics.map((d) => d.code) ?? [];
  const note = (i: number): string => {
    const m = published[i]?.diagnostics.find((d) => d.code === "targets")?.message ?? "";
    return typeof m === "string" ? m : m.value;
  };
  for (let i = 0; i < 500 && published.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  // No targets anywhere: the arch-dependent rules are off and one note says so.
  assert.deepEqual(codes(0), ["targets"]);
  assert.match(note(0), /bf16-unsupported-arch/);

  // Out-of-range values are ignored; a real SM relints with it assumed.
  await client.sendNotification(machineGpuNotification.method, { arch: 5 });
  await client.sendNotification(machineGpuNotification.method, { arch: 75 });
  for (let i = 0; i < 500 && published.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(published.length, 2, "one relint, for the valid notification only");
  assert.ok(codes(1).includes("targets"), `got ${JSON.stringify(codes(1))}`);
  assert.match(note(1), /assuming this machine's GPU \(sm_75\)/);
  assert.deepEqual(targets.at(-1)?.archs, ["sm_75"]);
  await close();
});
