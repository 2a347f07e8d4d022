// The server's incremental path (LSP range edits -> TextDocument + tree.edit + reparse + windowed relint)
// must give the same findings as linting the text from scratch, through 10,000 random edits sent back to
// back as an editor sends them under a fast typist: no edit waits for the diagnostics of the one before,
// so the server lints whatever run of edits has arrived when it gets to it. Between bursts of edits, and
// after the last one, the test waits until the server has published for the last version sent (by the
// version the diagnostics carry, not by a sleep) and compares with a fresh lint of that text under the
// build context the server resolves for the file. CKD_SYNC_SEEDS / CKD_SYNC_EDITS change the run.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { TextDocument } from "vscode-languageserver-textdocument";
import type { Diagnostic } from "vscode-languageserver-protocol/node";
import { benchSpecFindings } from "../../server/bench/specDiagnostics";
import { buildFacts, resolveBuildContext } from "../../server/lint/buildContext";
import { compareSpans } from "../../server/lint/engine";
import { lintSource } from "../../server/lint/lintDocument";
import { normalizeLineEnds } from "../../server/lint/lineEnds";
import { isSuppressed, parseSuppressions } from "../../server/lint/suppressions";
import { toDiagnostic } from "../../server/lsp/convert";
import { rules } from "../../server/rules/index";
import { prng } from "../unit/fuzz/mutate";
import { lspForFile, REPO, type LspSession } from "./lspClient";
import { Typist } from "./typist";

const SEEDS = (process.env.CKD_SYNC_SEEDS ?? "1,2,3").split(",").map(Number);
const EDITS = Number(process.env.CKD_SYNC_EDITS ?? 10_000);
/** Edits per burst: 1 to this many, sent back to back. */
const BURST = 60;

/** The examples in one file: kernels of every kind, launches of templates, a file that breaks conventions. */
const EXAMPLES = readdirSync(join(REPO, "examples"))
  .filter((f) => f.endsWith(".cu"))
  .sort()
  .map((f) => readFileSync(join(REPO, "examples", f), "utf8"))
  .join("\n");

/** The server as the extension runs it: the bundle `npm run build` makes. */
const SERVER = join(REPO, "dist", "server.js");
if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: run \`npm run build\` first`);

let lsp: LspSession;
lspForFile(
  {
    args: [SERVER, "--stdio"],
    settings: { targets: ["sm_75", "sm_90"] },
    initializationOptions: { lintDebounceMs: 0 },
  },
  (s) => (lsp = s),
);

/** One line per diagnostic: rule, severity, range, message (a string here, as toDiagnostic makes it). */
const line = (d: Diagnostic): string => {
  const { start, end } = d.range;
  return `${String(d.code)} ${String(d.severity)} ${start.line}:${start.character}-${end.line}:${end.character} ${JSON.stringify(d.message)}`;
};

/**
 * What the server publishes, from scratch: a fresh lint of `text` under the build context the server
 * resolves for `uri` (documentContext.ts), and the `@bench` spec findings (benchSpecDiagnostics.ts), in
 * the order diagnostics.ts gives them.
 */
async function freshLint(uri: string, text: string): Promise<string[]> {
  // No build file above a temp folder: the targets are the session's setting.
  const path = fileURLToPath(uri);
  const context = resolveBuildContext({
    file: path,
    explicit: { archs: [75, 90], source: "setting" },
    stopAt: dirname(path),
    env: {},
  });
  const findings = await lintSource(text, {
    rules,
    targets: context.targets.archs,
    fileName: path,
    build: buildFacts(context),
  });
  // The spec checks read the text as the server gives it to providers (lone \r read as \n).
  const normal = normalizeLineEnds(text);
  const suppressions = parseSuppressions(normal);
  const specs = benchSpecFindings(normal).filter((f) => !isSuppressed(suppressions, f));
  return [...findings, ...specs]
    .sort((a, b) => compareSpans(a.span, b.span))
    .map((f) => line(toDiagnostic(f)));
}

/** Sends `count` changes from `typist`, one didChange each, none waiting for diagnostics. */
async function burst(doc: TextDocument, count: number, typist: Typist): Promise<TextDocument> {
  const sent: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const change = typist.next(doc);
    doc = TextDocument.update(doc, [change], doc.version + 1);
    sent.push(
      lsp.conn.sendNotification("textDocument/didChange", {
        textDocument: { uri: doc.uri, version: doc.version },
        contentChanges: [change],
      }),
    );
  }
  await Promise.all(sent);
  return doc;
}

/** The diagnostics the server publishes for the document's current version (waited for by version). */
async function published(doc: TextDocument): Promise<string[]> {
  if (lsp.diagnostics.get(doc.uri)?.version !== doc.version) {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no diagnostics for version ${doc.version}`)), 30_000);
    });
    try {
      await Promise.race([lsp.published(doc.uri, doc.version), late]);
    } finally {
      clearTimeout(timer);
    }
  }
  return lsp.diagnostics.get(doc.uri)!.diagnostics.map(line);
}

/** Waits for the diagnostics of the document's version and compares them with a fresh lint's. */
async function compare(doc: TextDocument, seed: number): Promise<number> {
  const live = await published(doc);
  assert.deepEqual(live, await freshLint(doc.uri, doc.getText()), `seed ${seed}, version ${doc.version}`);
  return live.length;
}

for (const seed of SEEDS)
  test(`${EDITS} random edits sent back to back (seed ${seed}): after each burst the live findings equal a fresh lint's`, async () => {
    const rng = prng(seed);
    const uri = pathToFileURL(join(tmpdir(), "ckd-sync", String(seed), "examples.cu")).href;
    let doc = TextDocument.create(uri, "cuda-cpp", 1, EXAMPLES);
    await lsp.conn.sendNotification("textDocument/didOpen", {
      textDocument: { uri, languageId: "cuda-cpp", version: 1, text: EXAMPLES },
    });
    const typist = new Typist(rng);
    let bursts = 0;
    let findings = 0;
    try {
      for (let sent = 0; sent < EDITS; bursts++) {
        const count = Math.min(EDITS - sent, 1 + rng.int(BURST));
        doc = await burst(doc, count, typist);
        sent += count;
        findings += await compare(doc, seed);
      }
      // The reproduction ended so: edits back to back, then one more after the pause.
      doc = await burst(doc, 1, typist);
      findings += await compare(doc, seed);
    } finally {
      await lsp.conn.sendNotification("textDocument/didClose", { textDocument: { uri } });
    }
    // The comparisons mean something only if the edited file kept findings to compare, and the edits
    // were back to back only if the server linted runs of them: fewer lints than edits (about one in
    // eleven here; one per edit would mean the test waited for each).
    assert.ok(findings > bursts, `${findings} findings in ${bursts + 1} comparisons`);
    const lints = lsp.publishes.get(uri) ?? 0;
    assert.ok(lints < EDITS, `${lints} lints for ${EDITS + 1} edits`);
  });
