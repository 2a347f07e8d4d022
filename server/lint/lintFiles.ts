// Lints files on disk (the CLI's `lint` and the benchmarks): folders are walked for .cu/.cuh, and for
// headers with device code.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Finding, Rule } from "../rules/rule";
import { errorMessage } from "../util/errorMessage";
import { configFor } from "./config";
import { CLI_LIMITS, LintDocument } from "./lintDocument";
import { cudaParser } from "./parser";
import { resolveTargets, type ResolvedTargets } from "./targets";

export interface FileReport {
  /** Absolute path. */
  file: string;
  targets: ResolvedTargets;
  findings: Finding[];
  /** Set when the file was not linted (unreadable, parse timeout). */
  skipped?: string;
  /** Config problems, rule failures: printed as warnings. */
  warnings: string[];
}

const SKIP_DIRS = new Set(["node_modules", ".git", "build", "dist", "__pycache__"]);
const CUDA_FILE = /\.cuh?$/;
/** C++ headers that hold kernels in many projects (flash-attention's, apex's, marlin's). */
const HEADER_FILE = /\.(?:h|hpp|hxx|inl)$/;
const DEVICE_CODE = /\b__(?:global|device)__\b/;

/** A header is linted when its text defines CUDA device code: a cheap look before any parse. */
function hasDeviceCode(file: string): boolean {
  try {
    return DEVICE_CODE.test(readFileSync(file, "latin1"));
  } catch {
    return false;
  }
}

/**
 * Expands paths to the files they name or contain, sorted: .cu/.cuh, and headers (.h/.hpp/.hxx/.inl)
 * that define __global__ or __device__ code. A missing path throws.
 */
export function collectCudaFiles(paths: readonly string[]): string[] {
  const out = new Set<string>();
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
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
  return [...out].sort();
}

export interface LintFilesOptions {
  rules: readonly Rule[];
  /** --arch: overrides every other source when given. */
  archs?: number[];
  env?: NodeJS.ProcessEnv;
}

export async function lintFiles(files: readonly string[], opts: LintFilesOptions): Promise<FileReport[]> {
  const parser = await cudaParser();
  const known = new Set(opts.rules.map((r) => r.id));
  const reports: FileReport[] = [];
  for (const file of files) {
    const targets = resolveTargets({
      file,
      explicit: opts.archs && opts.archs.length > 0 ? { archs: opts.archs, source: "cli" } : undefined,
      env: opts.env,
    });
    const config = configFor(file, known);
    const report: FileReport = {
      file,
      targets,
      findings: [],
      warnings: [...targets.notes, ...config.problems],
    };
    reports.push(report);
    let text: string;
    try {
      // Editors drop a UTF-8 BOM from the text; so must we, or line 1's columns shift by one.
      text = readFileSync(file, "utf8").replace(/^\uFEFF/, "");
    } catch (err) {
      report.skipped = `cannot read: ${errorMessage(err)}`;
      continue;
    }
    const doc = new LintDocument(parser, text, CLI_LIMITS);
    try {
      const out = doc.lint({
        fileName: file,
        targets: targets.archs,
        rules: opts.rules,
        ruleOptions: { launchCheckMacros: config.launchCheckMacros },
        severity: config.severity,
      });
      if (out.kind === "skipped") report.skipped = out.reason;
      else {
        report.findings = out.findings;
        for (const f of out.failures)
          report.warnings.push(`rule ${f.rule} failed: ${f.message.split("\n")[0]}`);
      }
    } finally {
      doc.dispose();
    }
  }
  return reports;
}
