// The server reads the workspace: targets from build.toml, severities and opted-in project conventions
// from .cuda-kernel-dev.toml, and re-reads them when the client reports a changed file; lint.enable
// turns it all off.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { tempDir } from "../support/tempDir";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { pathToFileURL } from "node:url";
import { startLsp, type LspSession } from "./lspClient";

const SRC = `#include <cuda_bf16.h>
__global__ void scale(__nv_bfloat16* x, float s) {
  float v = __bfloat162float(x[threadIdx.x]) * s;
  v += __shfl_xor(v, 1);
  x[threadIdx.x] = __float2bfloat16(v);
  // BF16 on the tensor cores: what sm_75 cannot build (conversions compile there)
  nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, __nv_bfloat16, nvcuda::wmma::row_major> f;
}
`;

let lsp: LspSession;
let root: string;
let uri: string;

// Each test gets a fresh workspace (build.toml: sm_80 and sm_90; .cuda-kernel-dev.toml: the shuffle
// rule a warning) and a fresh server with the file open: the tests rewrite those files and settings.
beforeEach(async () => {
  root = tempDir("ckd-ws-");
  mkdirSync(join(root, "csrc"));
  writeFileSync(
    join(root, "build.toml"),
    '[kernel.scale]\nbackend = "cuda"\ncuda-capabilities = ["8.0", "9.0"]\n',
  );
  writeFileSync(join(root, ".cuda-kernel-dev.toml"), '[rules]\ndeprecated-shuffle = "warning"\n');
  writeFileSync(join(root, "csrc", "scale.cu"), SRC);
  uri = pathToFileURL(join(root, "csrc", "scale.cu")).href;
  lsp = await startLsp({ rootUri: pathToFileURL(root).href, initializationOptions: { lintDebounceMs: 0 } });
  await lsp.conn.sendNotification("textDocument/didOpen", {
    textDocument: { uri, languageId: "cuda-cpp", version: 1, text: SRC },
  });
});
afterEach(async () => {
  await lsp.close();
});

/** Rewrites a workspace file and tells the server, as the client's file watcher does. */
async function rewrite(name: string, text: string): Promise<void> {
  writeFileSync(join(root, name), text);
  await lsp.conn.sendNotification("workspace/didChangeWatchedFiles", {
    changes: [{ uri: pathToFileURL(join(root, name)).href, type: 2 }],
  });
}

/** Waits for the first lint: the shuffle rule reported at the config file's severity (warning). */
async function firstLint(): Promise<void> {
  await lsp.waitForDiagnostics(uri, (d) =>
    d.some((x) => x.code === "deprecated-shuffle" && x.severity === 2),
  );
}

const rulesOf = (d: { code?: string | number }[]): (string | number | undefined)[] => d.map((x) => x.code);

test("targets come from the nearest build.toml; severities from .cuda-kernel-dev.toml", async () => {
  const diags = await lsp.waitForDiagnostics(uri, (d) => rulesOf(d).includes("deprecated-shuffle"));
  assert.equal(
    diags.find((d) => d.code === "deprecated-shuffle")!.severity,
    2,
    "warning, from the config file",
  );
  assert.ok(!rulesOf(diags).includes("bf16-unsupported-arch"), "sm_80+ only: bf16 is fine");
  assert.ok(!rulesOf(diags).includes("candle-extern-c"), "project conventions are off by default");
  const { context, ...targets } = await lsp.waitFor("targets", () => lsp.targets.get(uri));
  assert.match((context ?? []).join("\n"), /^Build: build\.toml$/m);
  assert.deepEqual(targets, {
    uri,
    archs: ["sm_80", "sm_90"],
    source: "build.toml",
    file: join(root, "build.toml"),
  });
});

test("a changed build file (workspace/didChangeWatchedFiles) re-resolves targets and relints", async () => {
  await firstLint();
  assert.ok(!rulesOf(lsp.diagnostics.get(uri)!.diagnostics).includes("bf16-unsupported-arch"));
  await rewrite("build.toml", '[kernel.scale]\nbackend = "cuda"\ncuda-capabilities = ["7.5", "9.0"]\n');
  await lsp.waitFor("sm_75 targets", () => (lsp.targets.get(uri)?.archs[0] === "sm_75" ? true : undefined));
  await lsp.waitForDiagnostics(uri, (d) => rulesOf(d).includes("bf16-unsupported-arch"));
});

test("a project convention opted into in .cuda-kernel-dev.toml runs as you type", async () => {
  await firstLint();
  assert.ok(!rulesOf(lsp.diagnostics.get(uri)!.diagnostics).includes("candle-extern-c"));
  await rewrite(".cuda-kernel-dev.toml", "[conventions]\ncandle = true\n");
  await lsp.waitForDiagnostics(uri, (d) => rulesOf(d).includes("candle-extern-c"));
});

test("a broken config file is reported in the targets notes, not thrown", async () => {
  // From the config file's warning, so the default severity below is the broken file's doing.
  await firstLint();
  await rewrite(".cuda-kernel-dev.toml", "[rules\n");
  const notes = await lsp.waitFor("notes", () => lsp.targets.get(uri)?.notes);
  assert.match(notes.join("\n"), /\.cuda-kernel-dev\.toml/);
  // Back to the rule's default severity (error) once the broken file no longer applies.
  await lsp.waitForDiagnostics(uri, (d) =>
    d.some((x) => x.code === "deprecated-shuffle" && x.severity === 1),
  );
});

test("cudaKernelDev.lint.enable = false clears the diagnostics", async () => {
  await firstLint();
  lsp.settings = { lint: { enable: false } };
  await lsp.conn.sendNotification("workspace/didChangeConfiguration", { settings: null });
  await lsp.waitForDiagnostics(uri, (d) => d.length === 0);
});
