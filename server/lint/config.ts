// The workspace config file `.cuda-kernel-dev.toml`, read by the language server and the CLI alike:
//
//   [rules]                      # severity per rule id: error | warning | information | hint | off
//   half-operator = "off"
//   missing-launch-check = "error"
//
//   [lint]
//   launch-check-macros = ["CUDA_CHECK_LAUNCH"]   # accepted by missing-launch-check
//
//   [conventions]                # opt-in project conventions (see conventionsConfig.ts)
//   candle = true
//
// The nearest one above the linted file (up to the workspace root) applies.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { parse as parseToml } from "smol-toml";
import type { Conventions } from "../rules/conventions";
import { errorMessage } from "../util/errorMessage";
import { readConventions } from "./conventionsConfig";
import type { SeverityOverride } from "./engine";

export const CONFIG_FILE_NAME = ".cuda-kernel-dev.toml";

export interface WorkspaceConfig {
  /** The file read, when one was found. */
  file?: string;
  severity: Record<string, SeverityOverride>;
  launchCheckMacros: string[];
  /** The project conventions opted into; none when absent. */
  conventions?: Conventions;
  /** What was wrong with the file, one sentence each; the valid parts still apply. */
  problems: string[];
}

const LEVELS: readonly string[] = ["error", "warning", "information", "hint", "off"];

export const isSeverityOverride = (v: unknown): v is SeverityOverride =>
  typeof v === "string" && LEVELS.includes(v);

export function findConfigFile(fromDir: string, stopAt?: string): string | undefined {
  const stop = stopAt ? resolve(stopAt) : undefined;
  for (let dir = resolve(fromDir); ; dir = dirname(dir)) {
    const file = join(dir, CONFIG_FILE_NAME);
    if (existsSync(file)) return file;
    if (dir === stop || dirname(dir) === dir || (stop && relative(stop, dir).startsWith("..")))
      return undefined;
  }
}

/** Validates a `{ruleId: level}` map (from the file or a setting); unknown ids and levels become problems. */
export function checkSeverityMap(
  value: unknown,
  knownRules: ReadonlySet<string>,
  where: string,
  problems: string[],
): Record<string, SeverityOverride> {
  const out: Record<string, SeverityOverride> = {};
  if (value === undefined) return out;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    problems.push(`${where}: expected a table of rule id = level`);
    return out;
  }
  for (const [rule, level] of Object.entries(value)) {
    if (!knownRules.has(rule)) problems.push(`${where}: unknown rule "${rule}"`);
    else if (!isSeverityOverride(level))
      problems.push(`${where}: "${rule}" = ${JSON.stringify(level)} is not one of ${LEVELS.join(", ")}`);
    else out[rule] = level;
  }
  return out;
}

export function loadConfigFile(file: string, knownRules: ReadonlySet<string>): WorkspaceConfig {
  const config: WorkspaceConfig = { file, severity: {}, launchCheckMacros: [], problems: [] };
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(readFileSync(file, "utf8"));
  } catch (err) {
    config.problems.push(`${file}: ${errorMessage(err).split("\n")[0]}`);
    return config;
  }
  config.severity = checkSeverityMap(doc.rules, knownRules, `${file} [rules]`, config.problems);
  const lint = doc.lint;
  if (lint !== undefined && (lint === null || typeof lint !== "object" || Array.isArray(lint)))
    config.problems.push(`${file}: [lint] must be a table`);
  else if (lint) {
    const macros = (lint as Record<string, unknown>)["launch-check-macros"];
    if (Array.isArray(macros) && macros.every((m): m is string => typeof m === "string"))
      config.launchCheckMacros = boundedMacros(macros, file, config.problems);
    else if (macros !== undefined)
      config.problems.push(`${file}: [lint] launch-check-macros must be an array of strings`);
  }
  config.conventions = readConventions(doc.conventions, file, config.problems);
  return config;
}

/** More launch-check macros than any project has: the list is cut here (hostile or generated input). */
export const MAX_LAUNCH_CHECK_MACROS = 1000;

/** The names as given, cut to MAX_LAUNCH_CHECK_MACROS with a problem saying so. */
function boundedMacros(macros: string[], file: string, problems: string[]): string[] {
  if (macros.length <= MAX_LAUNCH_CHECK_MACROS) return macros;
  problems.push(
    `${file}: [lint] launch-check-macros has ${macros.length} names; only the first ${MAX_LAUNCH_CHECK_MACROS} are used`,
  );
  return macros.slice(0, MAX_LAUNCH_CHECK_MACROS);
}

/** The config that applies to `fileName`: the nearest file's, or an empty one. */
export function configFor(
  fileName: string,
  knownRules: ReadonlySet<string>,
  stopAt?: string,
): WorkspaceConfig {
  const file = findConfigFile(dirname(resolve(fileName)), stopAt);
  return file ? loadConfigFile(file, knownRules) : { severity: {}, launchCheckMacros: [], problems: [] };
}
