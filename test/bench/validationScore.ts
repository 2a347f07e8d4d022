// `npm run validation:score -- DIR [ROUND]`: scores a validation round (test/fixtures/corpus/VALIDATION.md)
// again after the rules changed. DIR holds the round's projects as `owner__name/` folders at the recorded
// commits (brought with the search tool's fetch; not committed). Each project is linted with the built CLI
// (dist/cli.js, --no-gpu); each sampled finding is still reported when a finding of its rule starts on
// its line. Prints, per rule, the sample's precision before and after (after: true positives still
// reported / sampled findings still reported), the true positives lost, and how many findings the rule
// reports that are not in the sample (the rest of the population, and any new ones: not scored).
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { findingKey as key, lintProject, type Project, type Reported } from "./validationLint";

interface Sampled {
  project: string;
  file: string;
  line: number;
  rule: string;
  verdict: "TP" | "FP";
  reason: string;
}
interface Round {
  projects: Project[];
  sample: Sampled[];
}

const [dirArg, roundArg = "1"] = process.argv.slice(2);
if (!dirArg) {
  console.error("usage: npm run validation:score -- DIR [ROUND]");
  process.exit(2);
}
const dir = resolve(dirArg);
const round = JSON.parse(
  readFileSync(join(__dirname, "..", "fixtures", "corpus", "validation", `round-${roundArg}.json`), "utf8"),
) as Round;
const now = new Map<string, Reported>();
for (const p of round.projects) for (const f of lintProject(dir, p)) now.set(key(f), f);
const sampledKeys = new Set(round.sample.map(key));
const rules = [...new Set(round.sample.map((s) => s.rule))].sort();
const pct = (a: number, b: number): string => (b === 0 ? "—" : `${((100 * a) / b).toFixed(0)}%`);
console.log("| rule | sampled | TP | before | still reported | TP still | after | TP lost | not sampled |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
let [n, tp, kept, keptTp] = [0, 0, 0, 0];
for (const rule of rules) {
  const s = round.sample.filter((x) => x.rule === rule);
  const t = s.filter((x) => x.verdict === "TP");
  const k = s.filter((x) => now.has(key(x)));
  const kt = k.filter((x) => x.verdict === "TP");
  const fresh = [...now.values()].filter((f) => f.rule === rule && !sampledKeys.has(key(f))).length;
  console.log(
    `| \`${rule}\` | ${s.length} | ${t.length} | ${pct(t.length, s.length)} | ${k.length} | ${kt.length} | ${pct(kt.length, k.length)} | ${t.length - kt.length} | ${fresh} |`,
  );
  [n, tp, kept, keptTp] = [n + s.length, tp + t.length, kept + k.length, keptTp + kt.length];
}
console.log(
  `| all | ${n} | ${tp} | ${pct(tp, n)} | ${kept} | ${keptTp} | ${pct(keptTp, kept)} | ${tp - keptTp} | |`,
);
const lost = round.sample.filter((x) => x.verdict === "TP" && !now.has(key(x)));
if (lost.length)
  console.log(
    `\nTrue positives no longer reported:\n${lost.map((x) => `  ${key(x)}  ${x.reason}`).join("\n")}`,
  );
const left = round.sample.filter((x) => x.verdict === "FP" && now.has(key(x)));
if (left.length)
  console.log(`\nFalse positives still reported:\n${left.map((x) => `  ${key(x)}  ${x.reason}`).join("\n")}`);
