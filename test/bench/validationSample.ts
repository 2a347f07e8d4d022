// `npm run validation:sample -- DIR ROUND PROJECTS.json [PER_RULE] [SEED]`: draws a validation round's
// sample (test/fixtures/corpus/VALIDATION.md, step 1) before anything changes. PROJECTS.json lists the
// round's projects ({ dir, repo, commit, scope }, folders under DIR). Each project is linted the way the
// scorer lints it (validationLint.ts); per rule, PER_RULE findings (default 40) are drawn with a seeded
// shuffle, round-robin over the projects so that one large project does not fill a rule's share, and
// every finding of a rule that has fewer. Writes test/fixtures/corpus/validation/round-ROUND.json with
// the verdicts empty (the triage fills them) and prints the population and the sample per rule.
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { lintProject, type Project, type Reported } from "./validationLint";

/** mulberry32: a small seeded generator, so the same seed draws the same sample. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(xs: T[], next: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Up to `n` of `byProject`'s findings, one project after another in turn. */
function roundRobin(byProject: Reported[][], n: number): Reported[] {
  const out: Reported[] = [];
  for (let i = 0; out.length < n && byProject.some((xs) => i < xs.length); i++)
    for (const xs of byProject) if (i < xs.length && out.length < n) out.push(xs[i]!);
  return out;
}

const [dirArg, roundArg, projectsArg, perRuleArg = "40", seedArg = "2026"] = process.argv.slice(2);
if (!dirArg || !roundArg || !projectsArg) {
  console.error("usage: npm run validation:sample -- DIR ROUND PROJECTS.json [PER_RULE] [SEED]");
  process.exit(2);
}
const dir = resolve(dirArg);
const projects = JSON.parse(readFileSync(projectsArg, "utf8")) as Project[];
const next = random(Number(seedArg));
const found = new Map(projects.map((p) => [p.dir, lintProject(dir, p)]));
const rules = [...new Set([...found.values()].flat().map((f) => f.rule))].sort();
const sample = rules.flatMap((rule) => {
  const byProject = projects.map((p) =>
    shuffled(
      found.get(p.dir)!.filter((f) => f.rule === rule),
      next,
    ),
  );
  const picked = roundRobin(byProject, Number(perRuleArg));
  const all = byProject.flat().length;
  console.log(`${rule}: ${all} found, ${picked.length} sampled`);
  return picked.map((f) => ({ project: f.file.split("/")[0], ...f, verdict: "", reason: "" }));
});
const linted = `${process.env.CKD_VALIDATION_CLI ?? "dist/cli.js"} --no-gpu`;
const out = join(__dirname, "..", "fixtures", "corpus", "validation", `round-${roundArg}.json`);
writeFileSync(
  out,
  `${JSON.stringify({ round: Number(roundArg), linted, seed: Number(seedArg), projects, sample }, null, 2)}\n`,
);
console.log(`${sample.length} findings -> ${out}`);
