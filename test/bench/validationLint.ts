// The validation rounds' one way of linting a project (test/fixtures/corpus/VALIDATION.md): the built CLI
// (dist/cli.js, or the CLI named by CKD_VALIDATION_CLI, such as a copy frozen at a round's start), run
// from DIR on the project's folder with --no-gpu, so file paths start with the project's `owner__name/`.
// The sampler (validationSample.ts) and the scorer (validationScore.ts) both lint through it, so a
// sampled finding and a re-scored one are read the same way.
import { execFileSync } from "node:child_process";
import { join } from "node:path";

export interface Reported {
  file: string;
  line: number;
  column: number;
  rule: string;
  message: string;
}
export interface Project {
  dir: string;
  repo: string;
  commit: string;
  scope: string;
}

const cli = process.env.CKD_VALIDATION_CLI ?? join(__dirname, "..", "..", "dist", "cli.js");

/** The findings of `p` under its scope, `targets` notes left out. */
export function lintProject(dir: string, p: Project): Reported[] {
  // Exit 1 (errors found) and 5 (incomplete) still print the findings: a result, not a failure.
  let out: string;
  try {
    out = execFileSync("node", [cli, "lint", p.dir, "--no-gpu", "--format", "json"], {
      cwd: dir,
      encoding: "utf8",
      maxBuffer: 1 << 28,
      stdio: ["ignore", "pipe", "ignore"],
    });
  } catch (err) {
    out = (err as { stdout?: string }).stdout ?? "[]";
  }
  const inScope = (f: Reported): boolean => f.file.startsWith(`${p.dir}/${p.scope}`);
  return (JSON.parse(out) as Reported[]).filter((f) => f.rule !== "targets" && inScope(f));
}

export const findingKey = (f: { file: string; line: number; rule: string }): string =>
  `${f.file}:${f.line}:${f.rule}`;
