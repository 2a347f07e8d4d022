// Symbolic links in a folder walk: followed while they lead inside the folders walked (each real
// folder and file taken once: loops and aliases are noticed by real path), not followed out of them;
// whatever was passed over is said, and a dangling .cu link is a file that could not be linted.
import assert from "node:assert/strict";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { after, describe, it } from "node:test";
import { findCudaFiles } from "../../../server/lint/lintFiles";
import { runCli } from "../../support/cliRun";
import { tempDir } from "../../support/tempDir";

const tmp = tempDir("ckd-links-");
after(() => rmSync(tmp, { recursive: true, force: true }));

const KERNEL = "__global__ void k(float* x) { x[threadIdx.x] = 0.f; }\n";
const root = join(tmp, "project");
const outside = join(tmp, "elsewhere");
for (const [rel, text] of Object.entries({
  "project/a.cu": KERNEL,
  "project/kernels/b.cu": KERNEL,
  "project/build/gen/g.cu": KERNEL,
  "elsewhere/e.cu": KERNEL,
})) {
  mkdirSync(join(tmp, rel, ".."), { recursive: true });
  writeFileSync(join(tmp, rel), text);
}
symlinkSync("..", join(root, "kernels", "loop")); // a loop back to the project
symlinkSync("kernels", join(root, "alias")); // a second name for a folder walked anyway
symlinkSync(join("build", "gen"), join(root, "gen")); // the only way in to build/gen (build/ is not walked)
symlinkSync("a.cu", join(root, "k2.cu")); // a second name for a file
symlinkSync(outside, join(root, "ext")); // out of the walked folder
symlinkSync(join(outside, "e.cu"), join(root, "ext.cu"));
symlinkSync("missing.cu", join(root, "dead.cu"));

describe("symbolic links in a folder walk", () => {
  it("are followed inside the walked folder, once per real file and folder; the rest is said", () => {
    const r = findCudaFiles([root]);
    assert.deepEqual(
      r.files.map((f) => relative(root, f)),
      ["a.cu", join("gen", "g.cu"), join("kernels", "b.cu")],
    );
    const skipped = r.skipped
      .map((s) => `${relative(root, s.path)}: ${s.incomplete ? "INCOMPLETE " : ""}${s.reason}`)
      .sort();
    assert.deepEqual(skipped, [
      "alias: a link to a folder walked already (kernels): not walked twice",
      "dead.cu: INCOMPLETE cannot read: a link to nothing (missing.cu)",
      `ext.cu: a link out of the folders walked (to ${join(outside, "e.cu")}): not followed; name it to lint it`,
      `ext: a link out of the folders walked (to ${outside}): not followed; name it to lint it`,
      "k2.cu: a link to a file taken already (a.cu)",
      `${join("kernels", "loop")}: a link to a folder walked already (.): not walked twice`,
    ]);
  });

  it("a link named on the command line is linted wherever it leads", () => {
    assert.deepEqual(findCudaFiles([join(root, "ext.cu")]).files, [join(root, "ext.cu")]);
    assert.deepEqual(
      findCudaFiles([join(root, "ext")]).files.map((f) => relative(root, f)),
      [join("ext", "e.cu")],
    );
  });

  it("the CLI says what it passed over on stderr; the dangling .cu makes the run incomplete", () => {
    const r = runCli({ cwd: root }, "lint", "--no-gpu", "--arch", "sm_90", ".");
    assert.match(r.stderr, /ext: a link out of the folders walked/);
    assert.match(r.stderr, /dead\.cu: not linted: cannot read: a link to nothing/);
    assert.match(r.stdout, /^3 files: /m);
    assert.equal(r.code, 5);
  });
});
