// The quick fixes checked by the real compiler: each rule's firing fixtures, with every fix applied, must
// compile with nvcc (under PyTorch's half flags for half-operator), and where the finding is a compile
// error (half-operator, deprecated-shuffle) the unfixed code must not. Skipped where nvcc is absent
// (a failure under CKD_REQUIRE=nvcc).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFile } from "node:child_process";
import { lintSource } from "../../../server/lint/lintDocument";
import { rules } from "../../../server/rules/index";
import { applyEdits, fixtureTargets, STRICT_HALF_FLAGS } from "./helpers";
import { skipWithout } from "../../support/needs";
import { tempDir } from "../../support/tempDir";

const NVCC = ["/usr/local/cuda/bin/nvcc", "/usr/local/bin/nvcc"].find((p) => existsSync(p));
const skip = skipWithout(
  "nvcc",
  NVCC ? undefined : "nvcc not found in /usr/local/cuda/bin or /usr/local/bin",
);
const ROOT = join(__dirname, "..", "..", "fixtures", "rules");
const PRELUDE = [
  "#include <cuda_runtime.h>",
  "#include <cuda_fp16.h>",
  "#include <cuda_bf16.h>",
  "#include <mma.h>",
  "#include <cstdint>",
  "#define C10_CUDA_KERNEL_LAUNCH_CHECK() ((void)cudaGetLastError())",
  "",
].join("\n");

/** Applies the first fix of the first fixable finding until none is left. */
async function fixAll(text: string, ruleId: string): Promise<string> {
  for (let round = 0; round < 20; round++) {
    const found = (await lintSource(text, { rules, targets: fixtureTargets(text) })).filter(
      (f) => f.rule === ruleId,
    );
    const fix = found.find((f) => f.fixes.length > 0)?.fixes[0];
    if (!fix) return text;
    text = applyEdits(text, fix.edits);
  }
  throw new Error("fixes did not converge");
}

/** One translation unit of many fixtures, each in its own namespace so their names cannot clash. */
function translationUnit(texts: string[]): string {
  return (
    PRELUDE +
    texts
      .map((t, i) => `namespace fixture_${i} {\n${t.replace(/^\s*#\s*include.*$/gm, "")}\n}  // namespace\n`)
      .join("\n")
  );
}

/** Compiles one source; resolves with the exit code and the combined output (execa is ESM-only here). */
function compile(
  dir: string,
  name: string,
  source: string,
  arch: string,
  flags: string[] = [],
): Promise<{ exitCode: number; all: string }> {
  const file = join(dir, `${name}.cu`);
  writeFileSync(file, source);
  return nvccRun([`-arch=${arch}`, ...flags, "-c", file, "-o", join(dir, `${name}.o`)]);
}

function nvccRun(args: string[]): Promise<{ exitCode: number; all: string }> {
  args = ["-std=c++17", ...args];
  return new Promise((resolve) => {
    execFile(NVCC!, args, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
      resolve({ exitCode: code, all: stdout + stderr });
    });
  });
}

const CASES: { rule: string; arch: string; flags: string[]; unfixedFails: boolean }[] = [
  { rule: "half-operator", arch: "sm_80", flags: STRICT_HALF_FLAGS, unfixedFails: true },
  { rule: "half-implicit-conversion", arch: "sm_80", flags: STRICT_HALF_FLAGS, unfixedFails: true },
  { rule: "deprecated-shuffle", arch: "sm_80", flags: [], unfixedFails: true },
  { rule: "int-index-overflow", arch: "sm_80", flags: [], unfixedFails: false },
  { rule: "bf16-unsupported-arch", arch: "sm_75", flags: [], unfixedFails: true },
  { rule: "block-size-not-warp-multiple", arch: "sm_80", flags: [], unfixedFails: false },
];

describe("examples/ compile with nvcc", { skip }, () => {
  const EXAMPLES = join(__dirname, "..", "..", "..", "examples");
  const gencodes = [75, 80, 90].flatMap((sm) => ["-gencode", `arch=compute_${sm},code=sm_${sm}`]);
  for (const f of readdirSync(EXAMPLES).filter((n) => n.endsWith(".cu"))) {
    // bad_conventions.cu uses __half operators on purpose: it only has to build without the operator switches.
    const flags =
      f === "bad_conventions.cu"
        ? STRICT_HALF_FLAGS.filter((x) => !x.includes("OPERATORS"))
        : STRICT_HALF_FLAGS;
    it(`${f} for sm_75, sm_80, sm_90`, async () => {
      const r = await nvccRun([
        ...gencodes,
        ...flags,
        "-c",
        join(EXAMPLES, f),
        "-o",
        join(tmpdir(), `ckd-example-${process.pid}-${f}.o`),
      ]);
      rmSync(join(tmpdir(), `ckd-example-${process.pid}-${f}.o`), { force: true });
      assert.equal(r.exitCode, 0, r.all);
    });
  }
});

describe("quick fixes compile with nvcc", { skip }, () => {
  for (const c of CASES) {
    it(`${c.rule}: fixed fixtures compile for ${c.arch}${c.unfixedFails ? ", unfixed ones do not" : ""}`, async () => {
      const dir = tempDir("ckd-nvcc-");
      try {
        const fires = readdirSync(join(ROOT, c.rule, "fires")).map((f) =>
          readFileSync(join(ROOT, c.rule, "fires", f), "utf8"),
        );
        const fixed = await Promise.all(fires.map((t) => fixAll(t, c.rule)));
        const ok = await compile(dir, "fixed", translationUnit(fixed), c.arch, c.flags);
        assert.equal(ok.exitCode, 0, `fixed code does not compile:\n${ok.all}`);
        if (c.unfixedFails) {
          // one compile per fixture: each must fail on its own
          for (const [i, t] of fires.entries()) {
            const bad = await compile(dir, `unfixed${i}`, translationUnit([t]), c.arch, c.flags);
            assert.notEqual(
              bad.exitCode,
              0,
              `unfixed fixture ${i} compiles, so the rule's claim is wrong:\n${t}`,
            );
          }
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
