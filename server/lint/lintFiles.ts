// Lints files on disk (the CLI's `lint` and the benchmarks): folders are walked for .cu/.cuh, and for
// headers with device code.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
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

const SKIP_DIRS = new Set(["node_modules", ".git", "build", "dist", "__pycache__"]);
const CUDA_FILE = /\.cuh?$/;
/** C++ headers that hold kernels in many projects (flash-attention's, apex's, marlin's). */
const HEADER_FILE = /\.(?:h|hpp|hxx|inl)$/;
const DEVICE_CODE = /\b__(?:global|device)__\b/;

/**
 * A header is linted when its text defines CUDA device code: a cheap look before any parse. One that
 * cannot be read is taken, so the lint says it could not be read instead of passing it over.
 */
function hasDeviceCode(file: string): boolean {
  try {
    return DEVICE_CODE.test(readFileSync(file, "latin1"));
  } catch {
    return true;
  }
}

/** A path a folder walk did not take, and why. */
export interface WalkSkip {
  path: string;
  reason: string;
  /** true when something that should have been linted was not (an unreadable folder), false for policy. */
  incomplete: boolean;
}

export interface CudaFiles {
  /** Sorted absolute paths. */
  files: string[];
  skipped: WalkSkip[];
}

/**
 * Expands paths to the files they name or contain, sorted: .cu/.cuh, and headers (.h/.hpp/.hxx/.inl)
 * that define __global__ or __device__ code. A missing path throws; a folder that cannot be read is
 * reported in `skipped` and the walk goes on.
 */
export function findCudaFiles(paths: readonly string[]): CudaFiles {
  const out = new Set<string>();
  const skipped: WalkSkip[] = [];
  const walk = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      skipped.push({ path: dir, reason: `cannot read the folder: ${errorMessage(err)}`, incomplete: true });
      return;
    }
    for (const e of entries) {
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && !e.name.startsWith(".")) walk(join(dir, e.name));
      } else if (!e.isFile()) continue;
      else if (CUDA_FILE.test(e.name)) out.add(join(dir, e.name));
      else if (HEADER_FILE.test(e.name) && hasDeviceCode(join(dir, e.name))) out.add(join(dir, e.name));
    }
  };
  for (const p of paths) {
    const abs = resolve(p);
    let st;
    try {
      st = statSync(abs);
    } catch {
      throw new Error(`no such file or folder: ${p}`);
    }
    if (st.isDirectory()) walk(abs);
    else out.add(abs);
  }
  return { files: [...out].sort(), skipped };
}

/** findCudaFiles' files alone. */
export const collectCudaFiles = (paths: readonly string[]): string[] => findCudaFiles(paths).files;

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
