// Fuzzing the language server over stdio: seeded random edits to real kernels (snippets of CUDA,
// deletions, random characters) sent as incremental changes, each followed by hover, code-action and
// symbol requests at random positions (some past the end). Every request must be answered (an error
// response counts as a crash), the server must not exit, and the last version's diagnostics must
// arrive. Used by test/integration/lspFuzz.test.ts (bounded) and test/bench/lspFuzz.ts (long).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { TextDocument } from "vscode-languageserver-textdocument";
import { REPO, type LspSession } from "./lspClient";

const SNIPPETS = [
  "__shfl_down(v, 1)",
  "__syncthreads();",
  "if (threadIdx.x < 16) {",
  "}",
  "<<<grid, 2048>>>",
  "__half h = a + b;",
  "__shared__ float s[65536];",
  "#if __CUDA_ARCH__ >= 800\n",
  "#endif\n",
  "template <typename T, int N>",
  "// @bench rows=[1024] cols=",
  "// @bench arg x: f32[rows*cols",
  "int i = blockIdx.x * blockDim.x + threadIdx.x;",
  '"unterminated',
  "/* open comment",
  "\\\n",
  "\u0000",
  "😀",
  "\r\n",
];

export function corpus(): { name: string; text: string }[] {
  return readdirSync(join(REPO, "examples"))
    .filter((f) => /\.cuh?$/.test(f))
    .map((f) => ({ name: f, text: readFileSync(join(REPO, "examples", f), "utf8") }));
}

function rng(seed: number): (n: number) => number {
  let s = seed >>> 0 || 1;
  return (n) => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s % Math.max(1, n);
  };
}

async function answered<T>(what: string, p: Promise<T>, ms = 30_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer to ${what} in ${ms / 1000} s (a hang)`)), ms);
  });
  try {
    return await Promise.race([p, hang]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `rounds` edit+request rounds on one document; throws on a crash, an error response or a hang. */
export async function fuzzDocument(lsp: LspSession, seed: number, rounds: number): Promise<void> {
  const r = rng(seed);
  const files = corpus();
  const file = files[r(files.length)]!;
  const uri = pathToFileURL(join(REPO, "test", "integration", "fuzz-project", `${seed}-${file.name}`)).href;
  let doc = TextDocument.create(uri, "cuda-cpp", 1, file.text);
  await lsp.conn.sendNotification("textDocument/didOpen", {
    textDocument: { uri, languageId: "cuda-cpp", version: 1, text: file.text },
  });
  for (let i = 0; i < rounds; i++) {
    const len = doc.getText().length;
    const start = r(len + 1);
    const end = r(3) === 0 ? Math.min(len, start + r(200)) : start;
    const text =
      r(3) === 0
        ? String.fromCharCode(...Array.from({ length: 1 + r(8) }, () => 1 + r(0x2fff)))
        : r(4) === 0
          ? ""
          : SNIPPETS[r(SNIPPETS.length)]!;
    const change = { range: { start: doc.positionAt(start), end: doc.positionAt(end) }, text };
    doc = TextDocument.update(doc, [change], doc.version + 1);
    await lsp.conn.sendNotification("textDocument/didChange", {
      textDocument: { uri, version: doc.version },
      contentChanges: [change],
    });
    const lines = doc.lineCount;
    const position = { line: r(lines + 2), character: r(120) };
    const at = `${file.name} seed ${seed} round ${i}`;
    await answered(
      `hover (${at})`,
      lsp.conn.sendRequest("textDocument/hover", { textDocument: { uri }, position }),
    );
    await answered(
      `code actions (${at})`,
      lsp.conn.sendRequest("textDocument/codeAction", {
        textDocument: { uri },
        range: { start: position, end: { line: position.line + r(3), character: r(80) } },
        context: { diagnostics: [...(lsp.diagnostics.get(uri)?.diagnostics ?? [])].slice(0, 3) },
      }),
    );
    if (r(5) === 0)
      await answered(
        `symbols (${at})`,
        lsp.conn.sendRequest("textDocument/documentSymbol", { textDocument: { uri } }),
      );
    if (lsp.proc.exitCode !== null) throw new Error(`the server exited (${lsp.proc.exitCode}) at ${at}`);
  }
  const final = doc.version;
  await lsp.waitFor(
    `diagnostics of version ${final}`,
    () => {
      const p = lsp.diagnostics.get(uri);
      return p && (p.version === undefined || p.version >= final) ? true : undefined;
    },
    60_000,
  );
  await lsp.conn.sendNotification("textDocument/didClose", { textDocument: { uri } });
}
