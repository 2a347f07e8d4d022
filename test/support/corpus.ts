// The real-world corpus (test/fixtures/corpus/third_party: files from public projects) and its hand-made
// labels (test/fixtures/corpus/labels.json).
// Every finding the CLI reports there is keyed by text, not line numbers, so a label survives rule
// changes that move or add findings elsewhere: the file, the rule, the trimmed text of the finding's
// first line and which occurrence of that line in the file it is, and the text the finding's span
// covers on that line and which occurrence of it in the line.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { JsonFinding } from "../../server/lint/report";

const REPO = join(__dirname, "..", "..");
/** The vendored projects (under third_party/, which tools that look for repeated code pass over). */
export const CORPUS = join(REPO, "test", "fixtures", "corpus", "third_party");
export const LABELS_FILE = join(REPO, "test", "fixtures", "corpus", "labels.json");

export type Verdict = "tp" | "fp" | "unlabelled";

export interface Label {
  file: string;
  rule: string;
  /** The finding's first line, trimmed. */
  text: string;
  /** Which line of the file with that text (0 = the first). */
  n: number;
  /** What the finding's span covers on its first line (at most 60 characters). */
  span: string;
  /** Which occurrence of `span` in the line (0 = the first). */
  k: number;
  /** Where it was when labelled (1-based): for people, never used to match. */
  line: number;
  verdict: Verdict;
  /** For false positives: a short tag grouping the reasons (the README lists them by it). */
  category?: string;
  /** For false positives: no longer reported. The suite then fails if it comes back. */
  fixed?: boolean;
  /**
   * For true positives: no longer reported on purpose, a trade-off a rule change made and its doc states
   * (`lostBecause` says which). The suite fails on any other lost true positive.
   */
  lostBecause?: string;
  reason: string;
}

export type Key = Pick<Label, "file" | "rule" | "text" | "n" | "span" | "k">;

export const keyString = (k: Key): string => JSON.stringify([k.file, k.rule, k.text, k.n, k.span, k.k]);

/** `cuda-kernel-dev lint . --format json` in the corpus, as a user runs it (no arch list from the shell). */
export function lintCorpus(): JsonFinding[] {
  const tsx = pathToFileURL(join(REPO, "node_modules", "tsx", "dist", "loader.mjs")).href;
  const main = join(REPO, "server", "cli", "main.ts");
  // --no-gpu: the labels are for the declared targets, whatever GPU the machine running the test has.
  const args = ["--import", tsx, main, "lint", ".", "--no-gpu", "--format", "json"];
  const r = spawnSync(process.execPath, args, {
    cwd: CORPUS,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, TORCH_CUDA_ARCH_LIST: "" },
  });
  // Exit status 1 only says an error-level finding was reported.
  if (r.status !== 0 && r.status !== 1) throw new Error(`lint failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as JsonFinding[];
}

/** How many times `needle` occurs in `hay` before offset `end`. */
function occurrencesBefore(hay: string, needle: string, end: number): number {
  let count = 0;
  for (let i = hay.indexOf(needle); i >= 0 && i < end; i = hay.indexOf(needle, i + 1)) count++;
  return count;
}

/** Each finding with its key, in the order given. */
export function keyFindings(findings: readonly JsonFinding[]): { finding: JsonFinding; key: Key }[] {
  const files = new Map<string, string[]>();
  const linesOf = (file: string): string[] => {
    let lines = files.get(file);
    if (!lines) files.set(file, (lines = readFileSync(join(CORPUS, file), "utf8").split(/\r?\n/)));
    return lines;
  };
  return findings.map((finding) => {
    const lines = linesOf(finding.file);
    const raw = lines[finding.line - 1] ?? "";
    const text = raw.trim();
    const n = lines.slice(0, finding.line - 1).filter((l) => l.trim() === text).length;
    const end = finding.endLine === finding.line ? finding.endColumn - 1 : raw.length;
    const span = raw.slice(finding.column - 1, end).slice(0, 60);
    const k = span ? occurrencesBefore(raw, span, finding.column - 1) : 0;
    return { finding, key: { file: finding.file, rule: finding.rule, text, n, span, k } };
  });
}

export function readLabels(): Label[] {
  return JSON.parse(readFileSync(LABELS_FILE, "utf8")) as Label[];
}

/** Sorted by file, line, rule: a stable order so diffs of the file stay small. */
export function writeLabels(labels: readonly Label[]): void {
  const sorted = [...labels].sort(
    (a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.rule.localeCompare(b.rule),
  );
  writeFileSync(LABELS_FILE, `${JSON.stringify(sorted, null, 1)}\n`);
}

export interface Triage {
  /** Findings reported now, each with its label when there is one. */
  reported: { finding: JsonFinding; key: Key; label?: Label }[];
  /** False positives marked fixed that are reported again. */
  fpBack: Label[];
  /** Labelled true positives no longer reported. */
  tpLost: Label[];
  /** False positives no longer reported but not yet marked fixed (`--update` marks them). */
  fpGone: Label[];
  /** Findings with no label, or one still marked "unlabelled". */
  unlabelled: { finding: JsonFinding; key: Key; label?: Label }[];
}

export function triage(findings: readonly JsonFinding[], labels: readonly Label[]): Triage {
  const byKey = new Map(labels.map((l) => [keyString(l), l]));
  const reported = keyFindings(findings).map((r) => ({ ...r, label: byKey.get(keyString(r.key)) }));
  const seen = new Set(reported.map((r) => keyString(r.key)));
  const gone = labels.filter((l) => !seen.has(keyString(l)));
  return {
    reported,
    fpBack: reported.flatMap((r) => (r.label?.verdict === "fp" && r.label.fixed ? [r.label] : [])),
    tpLost: gone.filter((l) => l.verdict === "tp" && !l.lostBecause),
    fpGone: gone.filter((l) => l.verdict === "fp" && !l.fixed),
    unlabelled: reported.filter((r) => !r.label || r.label.verdict === "unlabelled"),
  };
}

/** A new label entry for a finding nobody has triaged yet. */
export const unlabelledEntry = (r: { finding: JsonFinding; key: Key }): Label => ({
  ...r.key,
  line: r.finding.line,
  verdict: "unlabelled",
  reason: r.finding.message,
});
