// The one way a test skips for want of a tool (a GPU, nvcc, ncu, nsys, the built addon, python3):
// `skipWithout(tool, missing)` is the `skip` option or the t.skip reason. A run that says its machine
// has the tool, CKD_REQUIRE=gpu,nvcc,ncu,nsys (npm run test:gpu sets it; npm test sets addon, which it
// has just built), fails instead of skipping: a test that can run there runs or fails.
import { spawnSync } from "node:child_process";

export const TOOLS = ["gpu", "nvcc", "ncu", "nsys", "addon", "python3"] as const;
export type Tool = (typeof TOOLS)[number];

/** The tools CKD_REQUIRE names; an unknown name is an error, so a typo cannot turn a check off. */
export function requiredTools(env: NodeJS.ProcessEnv = process.env): Set<Tool> {
  const names = (env.CKD_REQUIRE ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(TOOLS as readonly string[]).includes(n));
  if (unknown.length > 0)
    throw new Error(`CKD_REQUIRE names ${unknown.join(", ")}; it takes ${TOOLS.join(", ")}`);
  return new Set(names as Tool[]);
}

/**
 * false when `missing` is undefined (the tool is here); else why the test is skipped. Throws when
 * CKD_REQUIRE names the tool: at a test's definition that fails its file, in a test body the test.
 */
export function skipWithout(tool: Tool, missing: string | undefined, env = process.env): false | string {
  if (missing === undefined) return false;
  if (requiredTools(env).has(tool)) throw new Error(`CKD_REQUIRE names ${tool}, but ${missing}`);
  return missing;
}

/** undefined when `program --version` runs and exits 0; else a sentence saying it did not. */
export function programMissing(program: string, hint = ""): string | undefined {
  const r = spawnSync(program, ["--version"], { encoding: "utf8", timeout: 60_000 });
  if (r.status === 0) return undefined;
  const why = r.error ? (r.error as NodeJS.ErrnoException).code : `exit ${r.status}`;
  return `${program} not found or not working (${why})${hint ? `; ${hint}` : ""}`;
}
