// The examples/ workspace: the good kernels are clean for the targets in examples/build.toml, and
// bad_conventions.cu produces every rule its comments name, on the commented line.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";
import { buildFacts, resolveBuildContext } from "../../../server/lint/buildContext";
import { lintSource } from "../../../server/lint/lintDocument";
import { rules } from "../../../server/rules/index";

const EXAMPLES = join(__dirname, "..", "..", "..", "examples");

/** The SM targets of build.toml's kernels, e.g. ["7.5", "8.0"] → [75, 80]. */
function buildTomlTargets(): number[] {
  const toml = parse(readFileSync(join(EXAMPLES, "build.toml"), "utf8")) as {
    kernel?: Record<string, { "cuda-capabilities"?: string[] }>;
  };
  const caps = Object.values(toml.kernel ?? {}).flatMap((k) => k["cuda-capabilities"] ?? []);
  return [...new Set(caps.map((c) => Math.round(Number(c) * 10)))].sort((a, b) => a - b);
}

/** The build context the editor and the CLI give an example (its build.toml kernel's flags included). */
const buildOf = (f: string) =>
  buildFacts(resolveBuildContext({ file: join(EXAMPLES, f), stopAt: EXAMPLES, env: {} }));

describe("examples/", () => {
  const targets = buildTomlTargets();

  it("build.toml targets sm_75 (no BF16) as well as sm_80 and sm_90", () => {
    assert.deepEqual(targets, [75, 80, 90]);
  });

  const good = readdirSync(EXAMPLES).filter((f) => /\.cuh?$/.test(f) && f !== "bad_conventions.cu");
  for (const f of good) {
    it(`${f} has no findings`, async () => {
      const found = await lintSource(readFileSync(join(EXAMPLES, f), "utf8"), {
        rules,
        targets,
        fileName: f,
        build: buildOf(f),
      });
      assert.deepEqual(
        found.map((x) => `${x.span.startLine + 1}: ${x.rule}: ${x.message}`),
        [],
      );
    });
  }

  it("bad_conventions.cu shows each rule on the line whose comment names it", async () => {
    const text = readFileSync(join(EXAMPLES, "bad_conventions.cu"), "utf8");
    const found = await lintSource(text, {
      rules,
      targets,
      fileName: "bad_conventions.cu",
      build: buildOf("bad_conventions.cu"),
    });
    const ids = new Set(rules.map((r) => r.id));
    const marked = text.split("\n").flatMap((line, i) => {
      const comment = line.split("//")[1] ?? "";
      // a comment that starts with a rule id marks that line (file-level prose mentions are not markers)
      const m = /^\s*([a-z0-9-]+)/.exec(comment);
      return m && ids.has(m[1]!) && line.trim().indexOf("//") > 0 ? [{ line: i, rule: m[1]! }] : [];
    });
    assert.ok(marked.length >= 10, `only ${marked.length} marked lines`);
    for (const { line, rule } of marked)
      assert.ok(
        found.some((f) => f.rule === rule && f.span.startLine === line),
        `${rule} not reported on line ${line + 1}`,
      );
    // The file must compile under -D__CUDA_NO_HALF_CONVERSIONS__, so implicit conversions are shown by the
    // rule's fixtures instead; and for sm_75, which has no BF16 tensor-core fragments (bf16-unsupported-arch).
    const notShown = new Set(["half-implicit-conversion", "bf16-unsupported-arch"]);
    const seen = new Set(found.map((f) => f.rule));
    // Project-convention rules are off unless a project opts in; their fixtures show them.
    for (const r of rules)
      if (!notShown.has(r.id) && !r.convention)
        assert.ok(seen.has(r.id), `${r.id} never fires in bad_conventions.cu`);
  });
});
