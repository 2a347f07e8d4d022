// The `cudaKernelDev` settings the server reads, checked field by field (they arrive untyped).
import { isRecord } from "../util/isRecord";
import { errorMessage } from "../util/errorMessage";
import { parseArchList } from "./arch";
import { checkSeverityMap, MAX_LAUNCH_CHECK_MACROS } from "./config";
import type { SeverityOverride } from "./engine";

export interface LintSettings {
  /** Explicit targets; empty = resolve from build files. */
  targets: number[];
  enable: boolean;
  severity: Record<string, SeverityOverride>;
  launchCheckMacros: string[];
  maxFileSizeKB: number;
  /** Sentences about invalid values (which were ignored). */
  problems: string[];
}

export const DEFAULT_SETTINGS: LintSettings = {
  targets: [],
  enable: true,
  severity: {},
  launchCheckMacros: [],
  maxFileSizeKB: 1024,
  problems: [],
};

const isStringArray = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((s) => typeof s === "string");

/** `raw` is the `cudaKernelDev` section: `{ targets, lint: { enable, severity, launchCheckMacros, maxFileSizeKB } }`. */
export function readSettings(raw: unknown, knownRules: ReadonlySet<string>): LintSettings {
  const s: LintSettings = { ...DEFAULT_SETTINGS, problems: [] };
  if (!isRecord(raw)) return s;
  const targets = raw.targets;
  if (isStringArray(targets) || typeof targets === "string") {
    try {
      s.targets = parseArchList(targets);
    } catch (err) {
      s.problems.push(`cudaKernelDev.targets: ${errorMessage(err)}`);
    }
  }
  const lint = raw.lint;
  if (!isRecord(lint)) return s;
  if (typeof lint.enable === "boolean") s.enable = lint.enable;
  s.severity = checkSeverityMap(lint.severity, knownRules, "cudaKernelDev.lint.severity", s.problems);
  if (isStringArray(lint.launchCheckMacros))
    s.launchCheckMacros = lint.launchCheckMacros.slice(0, MAX_LAUNCH_CHECK_MACROS);
  if (typeof lint.maxFileSizeKB === "number" && lint.maxFileSizeKB > 0) s.maxFileSizeKB = lint.maxFileSizeKB;
  return s;
}
