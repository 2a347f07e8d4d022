import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  compileForArchs,
  mergeDiagnostics,
  projectFlags,
  spillWarnings,
} from "../../../server/compiler/compileFile";
import { resolveNvcc } from "../../../server/compiler/nvcc";
import { tempDir } from "../../support/tempDir";
import { allowLaunches } from "../../support/launches";

allowLaunches();

const broken = join(__dirname, "../../fixtures/compiler/broken");

void test("real nvcc for two architectures: a front-end error is reported once, per-arch ptxas results stay apart", async () => {
  const nvcc = await resolveNvcc(undefined);
  const file = join(broken, "syntax_error.cu");
  const results = await compileForArchs({
    file,
    archs: ["sm_80", "sm_90"],
    nvcc,
    flags: projectFlags(file, { includePaths: [], extraArgs: [] }),
    timeoutMs: 120_000,
  });
  assert.deepEqual(
    results.map((r) => r.arch),
    ["sm_80", "sm_90"],
  );
  for (const r of results) assert.equal(r.diagnostics.filter((d) => d.severity === "error").length, 2);
  assert.equal(mergeDiagnostics(results).filter((d) => d.severity === "error").length, 2);
  const ok = join(__dirname, "../../fixtures/compiler/rmsnorm.cu");
  const good = await compileForArchs({
    file: ok,
    archs: ["sm_75", "sm_90"],
    nvcc,
    flags: projectFlags(ok, { includePaths: [], extraArgs: [] }),
    timeoutMs: 120_000,
  });
  assert.deepEqual(
    good.map((r) => [r.arch, r.run.exitCode, r.kernels.map((k) => k.arch)]),
    [
      ["sm_75", 0, ["sm_75", "sm_75"]],
      ["sm_90", 0, ["sm_90", "sm_90"]],
    ],
  );
});

void test("a compiler that fails with output we do not recognise still gives an error on the file", async () => {
  const dir = tempDir("fake-nvcc-");
  const fake = join(dir, "nvcc");
  writeFileSync(fake, "#!/bin/sh\necho 'Segmentation fault in cicc' >&2\nexit 139\n");
  chmodSync(fake, 0o755);
  const file = join(dir, "k.cu");
  writeFileSync(file, "__global__ void k() {}\n");
  const [r] = await compileForArchs({
    file,
    archs: ["sm_90"],
    nvcc: fake,
    flags: projectFlags(file, { includePaths: [], extraArgs: [] }),
    timeoutMs: 10_000,
  });
  assert.equal(r!.diagnostics.length, 1);
  assert.equal(r!.diagnostics[0]!.severity, "error");
  assert.equal(r!.diagnostics[0]!.file, file);
  assert.match(r!.diagnostics[0]!.message, /^sm_90: nvcc failed \(exit 139\): Segmentation fault in cicc$/);
});

void test("projectFlags: compile_commands.json above the file wins, settings add to it; without it, settings alone", () => {
  const root = tempDir("proj-");
  mkdirSync(join(root, "src"));
  mkdirSync(join(root, "build"));
  const file = join(root, "src", "k.cu");
  writeFileSync(file, "");
  const settings = { includePaths: ["third_party"], extraArgs: ["--expt-relaxed-constexpr"] };
  const none = projectFlags(file, settings, root);
  assert.equal(none.from, "settings");
  assert.deepEqual(none.args, [`-I${join(root, "third_party")}`, "--expt-relaxed-constexpr"]);
  writeFileSync(
    join(root, "build", "compile_commands.json"),
    JSON.stringify([
      {
        directory: join(root, "build"),
        file: "../src/k.cu",
        arguments: ["nvcc", "-DX=1", "-c", "../src/k.cu"],
      },
    ]),
  );
  const cc = projectFlags(file, settings, root);
  assert.equal(cc.from, "compile_commands.json");
  assert.equal(cc.cwd, join(root, "build"));
  assert.deepEqual(cc.args, ["-DX=1", `-I${join(root, "third_party")}`, "--expt-relaxed-constexpr"]);
});

void test("real nvcc with -maxrregcount=32: a spill warning on the kernel's name, per architecture that spills", async () => {
  const nvcc = await resolveNvcc(undefined);
  const file = join(broken, "warnings.cu");
  const results = await compileForArchs({
    file,
    archs: ["sm_75", "sm_90"],
    nvcc,
    flags: { args: ["-maxrregcount=32"], cwd: broken, from: "settings" },
    timeoutMs: 120_000,
  });
  const text = readFileSync(file, "utf8");
  const warnings = spillWarnings(file, text, results);
  assert.deepEqual(
    warnings.map((w) => w.message.split(":")[0]),
    ["sm_75", "sm_90"],
  );
  for (const w of warnings) {
    assert.equal(w.code, "register-spill");
    assert.equal(text.split("\n")[w.range.startLine]!.slice(w.range.startColumn, w.range.endColumn), "noisy");
    assert.match(
      w.message,
      /noisy spills registers to local memory: \d+ B stores, \d+ B loads \(32 registers/,
    );
  }
  const none = await compileForArchs({
    file,
    archs: ["sm_90"],
    nvcc,
    flags: { args: [], cwd: broken, from: "settings" },
    timeoutMs: 120_000,
  });
  assert.deepEqual(spillWarnings(file, text, none), []);
});
