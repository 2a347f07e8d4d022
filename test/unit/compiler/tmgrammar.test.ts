// Runs the grammar tests (test/grammar/, vscode-tmgrammar-test on real nvcc/cuobjdump lines) as part
// of the unit suite, so they cannot be forgotten; `npm run test:grammar` runs the same thing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(__dirname, "../../..");

void test("vscode-tmgrammar-test passes on test/grammar (PTX, SASS, cuda-cpp injections)", () => {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  const script = pkg.scripts["test:grammar"];
  assert.ok(script?.startsWith("vscode-tmgrammar-test "), "the npm script exists");
  const r = spawnSync(
    process.execPath,
    [
      join(root, "node_modules/vscode-tmgrammar-test/dist/unit.js"),
      "-g",
      "test/fixtures/grammar/cuda-cpp.tmLanguage.json",
      "test/grammar/*.test.*",
    ],
    {
      cwd: root,
      encoding: "utf8",
    },
  );
  const passed = r.stdout.split("\n").filter((l) => l.includes("run successfuly")).length;
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.equal(passed, 3, r.stdout);
});
