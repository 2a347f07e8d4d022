// Lints files on disk (the CLI's `lint` and the benchmarks): folders are walked for .cu/.cuh, and for
// headers with device code.
import { readFileSync } from "node:fs";
import { relative, sep } from "node:path";
import type { Finding, Rule } from "../rules/rule";
import { errorMessage } from "../util/errorMessage";
import { buildFacts, resolveBuildContext, type BuildContext, type ResolvedTargets } from "./buildContext";
import { configFor } from "./config";
import { CLI_LIMITS, LintDocument, type DocumentLimits } from "./lintDocument";
import { cudaParser } from "./parser";

export interface FileReport {
  /** Absolute path. */
  file: string;
  targets: ResolvedTargets;
  context: BuildContext;
  findings: Finding[];
  /** Set when the file was not linted (unreadable, parse timeout). */
  skipped?: string;
  /** Set when the file's build compiles it for another backend (rocm, metal…): not linted, quietly. */
  notCuda?: boolean;
  /** Rules that threw on this file: their findings are missing (the first line of the error). */
  ruleFailures: { rule: string; message: string }[];
  /** Config problems: printed as warnings. */
  warnings: string[];
}

export { collectCudaFiles, findCudaFiles, type CudaFiles, type WalkSkip } from "./findFiles";

export interface LintFilesOptions {
  rules: readonly Rule[];
  /** --arch: overrides every other source when given. */
  archs?: number[];
  env?: NodeJS.ProcessEnv;
  /** Folders project headers may be read from (the folders linted, the working folder): the nearest applies. */
  headerRoots?: readonly string[];
  /** This machine's GPU (SM number), assumed for files that declare no targets. */
  gpuArch?: number;
  /** Size and parse-time limits (default CLI_LIMITS). */
  limits?: DocumentLimits;
}

/** The nearest of `roots` holding `file`: project headers above it are not read. */
function headerRootOf(file: string, roots: readonly string[]): string | undefined {
  const holding = roots.filter((r) => {
    const rel = relative(r, file);
    return rel !== "" && !rel.startsWith(".." + sep) && !rel.startsWith(sep);
  });
  return holding.sort((a, b) => b.length - a.length)[0];
}

export async function lintFiles(files: readonly string[], opts: LintFilesOptions): Promise<FileReport[]> {
  const parser = await cudaParser();
  const known = new Set(opts.rules.map((r) => r.id));
  const reports: FileReport[] = [];
  // A build file's notes ("native" is not a fixed architecture…) are said once, not once per source.
  const said = new Set<string>();
  for (const file of files) {
    const context = resolveBuildContext({
      file,
      explicit: opts.archs && opts.archs.length > 0 ? { archs: opts.archs, source: "cli" } : undefined,
      env: opts.env,
      ...(opts.gpuArch !== undefined ? { gpuArch: opts.gpuArch } : {}),
    });
    const { targets } = context;
    const config = configFor(file, known);
    const report: FileReport = {
      file,
      targets,
      context,
      findings: [],
      ruleFailures: [],
      warnings: [...targets.notes, ...config.problems].filter((w) => !said.has(w)),
    };
    for (const w of report.warnings) said.add(w);
    reports.push(report);
    if (context.backend !== "cuda") {
      report.notCuda = true;
      continue;
    }
    let text: string;
    try {
      // Editors drop a UTF-8 BOM from the text; so must we, or line 1's columns shift by one.
      text = readFileSync(file, "utf8").replace(/^\uFEFF/, "");
    } catch (err) {
      report.skipped = `cannot read: ${errorMessage(err)}`;
      continue;
    }
    const doc = new LintDocument(parser, text, opts.limits ?? CLI_LIMITS);
    try {
      const out = doc.lint({
        fileName: file,
        targets: targets.archs,
        build: buildFacts(context),
        rules: opts.rules,
        ruleOptions: {
          launchCheckMacros: config.launchCheckMacros,
          conventions: config.conventions,
          headerRoot: headerRootOf(file, opts.headerRoots ?? []),
        },
        severity: config.severity,
      });
      if (out.kind === "skipped") report.skipped = out.reason;
      else {
        report.findings = out.findings;
        report.ruleFailures = out.failures.map((f) => ({ rule: f.rule, message: f.message.split("\n")[0]! }));
      }
    } finally {
      doc.dispose();
    }
  }
  return reports;
}
