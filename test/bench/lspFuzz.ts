// `npm run fuzz:lsp -- [documents] [rounds per document] [first seed]`: the language-server fuzz at
// length, against the server from source. Prints rounds and requests per second; exits 1 on a crash,
// an error response or a hang, naming the seed and round.
import { startLsp } from "../integration/lspClient";
import { fuzzDocument } from "../integration/lspFuzz";

async function main(): Promise<void> {
  const docs = Number(process.argv[2] ?? 50);
  const rounds = Number(process.argv[3] ?? 200);
  const first = Number(process.argv[4] ?? 1000);
  const lsp = await startLsp({
    settings: { targets: ["sm_75", "sm_90"] },
    initializationOptions: { lintDebounceMs: 5 },
  });
  const t0 = performance.now();
  try {
    for (let seed = first; seed < first + docs; seed++) await fuzzDocument(lsp, seed, rounds);
    const s = (performance.now() - t0) / 1000;
    // A rule that throws is isolated by the engine (the server stays up) but is still a bug.
    const ruleFailures = lsp.stderr
      .join("")
      .split("\n")
      .filter((l) => /failed on .*Error/.test(l));
    for (const l of ruleFailures.slice(0, 10)) console.error(`rule failure: ${l}`);
    if (ruleFailures.length > 0) process.exitCode = 1;
    console.log(
      `${docs} documents x ${rounds} edits: no crash, no hang; ${((docs * rounds) / s).toFixed(0)} edit rounds/s (${s.toFixed(1)} s)`,
    );
  } catch (e) {
    console.error(e instanceof Error ? e.message : String(e));
    console.error(lsp.stderr.join("").slice(-3000));
    process.exitCode = 1;
  } finally {
    await lsp.close();
  }
}

void main();
