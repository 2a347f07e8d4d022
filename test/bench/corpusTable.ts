// `npm run corpus:table`: lints the real-world corpus (test/fixtures/corpus) and prints, per rule, the
// findings, how many the labels call true and false positives, and the precision, as the README's
// Markdown table; then the false positives by category. Changes nothing unless given `--update`, which
// adds each unlabelled finding to labels.json as "unlabelled" (for a person to triage) and marks the
// false positives no longer reported as fixed (the suite then fails if they come back).
import { rules } from "../../server/rules/index";
import {
  lintCorpus,
  readLabels,
  triage,
  unlabelledEntry,
  writeLabels,
  type Label,
  type Triage,
} from "../support/corpus";

interface Row {
  findings: number;
  tp: number;
  fp: number;
  unlabelled: number;
  fixed: number;
  lost: number;
}

const pct = (tp: number, fp: number): string =>
  tp + fp === 0 ? "—" : `${((100 * tp) / (tp + fp)).toFixed(1)}%`;

function rows(t: Triage, labels: readonly Label[]): Map<string, Row> {
  const out = new Map<string, Row>(
    rules.map((r) => [r.id, { findings: 0, tp: 0, fp: 0, unlabelled: 0, fixed: 0, lost: 0 }]),
  );
  const row = (rule: string): Row => {
    let r = out.get(rule);
    if (!r) out.set(rule, (r = { findings: 0, tp: 0, fp: 0, unlabelled: 0, fixed: 0, lost: 0 }));
    return r;
  };
  for (const { finding, label } of t.reported) {
    const r = row(finding.rule);
    r.findings++;
    if (label?.verdict === "tp") r.tp++;
    else if (label?.verdict === "fp") r.fp++;
    else r.unlabelled++;
  }
  for (const l of labels) if (l.verdict === "fp" && l.fixed) row(l.rule).fixed++;
  for (const l of t.fpGone) row(l.rule).fixed++;
  for (const l of t.tpLost) row(l.rule).lost++;
  // Lost on purpose (a documented trade-off) and still not reported: counted as lost too.
  const reported = new Set(t.reported.flatMap((r) => (r.label ? [r.label] : [])));
  for (const l of labels) if (l.verdict === "tp" && l.lostBecause && !reported.has(l)) row(l.rule).lost++;
  return out;
}

function table(t: Triage, labels: readonly Label[]): string {
  const lines = [
    "| Rule | Findings | TP | FP | Unlabelled | Precision | FP fixed | TP lost |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  const all = { findings: 0, tp: 0, fp: 0, unlabelled: 0, fixed: 0, lost: 0 };
  for (const [rule, r] of rows(t, labels)) {
    lines.push(
      `| \`${rule}\` | ${r.findings} | ${r.tp} | ${r.fp} | ${r.unlabelled} | ${pct(r.tp, r.fp)} | ${r.fixed} | ${r.lost} |`,
    );
    for (const k of Object.keys(all) as (keyof Row)[]) all[k] += r[k];
  }
  lines.push(
    `| all | ${all.findings} | ${all.tp} | ${all.fp} | ${all.unlabelled} | ${pct(all.tp, all.fp)} | ${all.fixed} | ${all.lost} |`,
  );
  return lines.join("\n");
}

/** False positives still reported, counted per rule and category. */
function fpCategories(t: Triage): string {
  const counts = new Map<string, number>();
  for (const { label } of t.reported)
    if (label?.verdict === "fp") {
      const key = `${label.rule}: ${label.category ?? "uncategorised"}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  return [...counts]
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(([k, n]) => `- ${k}: ${n}`)
    .join("\n");
}

function main(): void {
  const labels = readLabels();
  const t = triage(lintCorpus(), labels);
  process.stdout.write(
    `${table(t, labels)}\n\nFalse positives still reported, by category:\n${fpCategories(t)}\n`,
  );
  if (!process.argv.includes("--update")) return;
  const gone = new Set(t.fpGone);
  const updated = labels.map((l) => (gone.has(l) ? { ...l, fixed: true } : l));
  const fresh = t.unlabelled.filter((r) => !r.label).map(unlabelledEntry);
  writeLabels([...updated, ...fresh]);
  process.stdout.write(
    `\nlabels.json: ${fresh.length} unlabelled finding(s) added, ${gone.size} false positive(s) marked fixed.\n`,
  );
}

main();
