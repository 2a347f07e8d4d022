// Bounded language-server fuzz (see lspFuzz.ts): random edits with hover/code-action/symbol requests
// at random positions; no crash, no error response, no hang. `npm run fuzz:lsp -- N` runs longer.
import assert from "node:assert/strict";
import { test } from "node:test";
import { lspForFile, type LspSession } from "./lspClient";
import { fuzzDocument } from "./lspFuzz";

let lsp: LspSession;
lspForFile(
  {
    settings: { targets: ["sm_75", "sm_90"] },
    initializationOptions: { lintDebounceMs: 5 },
  },
  (s) => (lsp = s),
);

test("random edits with requests at random positions: every request answered, the server stays up", async () => {
  for (const seed of [1, 2, 3, 4]) await fuzzDocument(lsp, seed, 60);
  assert.equal(lsp.proc.exitCode, null);
  // A rule that throws is isolated by the engine (the server stays up) but is still a bug.
  assert.ok(!/Unhandled|TypeError|RangeError/.test(lsp.stderr.join("")), lsp.stderr.join("").slice(-2000));
});
