import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import {
  flagsFromCompileCommands,
  nvccArgs,
  NvccNotFoundError,
  resolveNvcc,
  runNvcc,
} from "../../../server/compiler/nvcc";
import { tempDir } from "../../support/tempDir";
import { allowLaunches } from "../../support/launches";

allowLaunches();

const fixtures = join(__dirname, "../../fixtures/compiler");

void test("resolveNvcc: the setting wins; a bare name is looked up on PATH; a bad setting is a clear error", async () => {
  const dir = tempDir("nvcc-");
  const fake = join(dir, "my-nvcc");
  writeFileSync(fake, "#!/bin/sh\n");
  chmodSync(fake, 0o755);
  assert.equal(await resolveNvcc(fake, { PATH: "" }), fake);
  assert.equal(await resolveNvcc("my-nvcc", { PATH: `/nonexistent:${dir}` }), fake);
  await assert.rejects(
    resolveNvcc(join(dir, "nope"), { PATH: dir }),
    (e: unknown) => e instanceof NvccNotFoundError && /cudaKernelDev\.nvcc\.path/.test(e.message),
  );
});

void test("resolveNvcc: without a setting, PATH first, then the toolkit's default location", async () => {
  const dir = tempDir("nvcc-");
  const onPath = join(dir, "nvcc");
  writeFileSync(onPath, "#!/bin/sh\n");
  chmodSync(onPath, 0o755);
  assert.equal(await resolveNvcc(undefined, { PATH: dir }), onPath);
  assert.equal(await resolveNvcc("  ", { PATH: "/nonexistent" }), "/usr/local/cuda/bin/nvcc");
});

void test("compile_commands.json: keeps include paths, defines, language and resource flags; drops outputs and targets", () => {
  const dir = tempDir("cc-");
  const cc = join(dir, "compile_commands.json");
  writeFileSync(
    cc,
    JSON.stringify([
      { directory: dir, file: "other.cu", command: "nvcc -DOTHER -c other.cu" },
      {
        directory: join(dir, "build"),
        file: "../src/k.cu",
        command:
          '/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -DTORCH_EXT="1" -I/opt/inc -isystem /usr/include/torch --expt-relaxed-constexpr -std=c++17 "--generate-code=arch=compute_90,code=[compute_90,sm_90]" -Xcompiler=-fPIC -maxrregcount=64 -x cu -c ../src/k.cu -o k.o -MD -MT k.o -MF k.d',
      },
    ]),
  );
  const flags = flagsFromCompileCommands(cc, join(dir, "src", "k.cu"))!;
  assert.equal(flags.cwd, join(dir, "build"));
  assert.deepEqual(flags.args, [
    "-DTORCH_EXT=1",
    "-I/opt/inc",
    "-isystem",
    "/usr/include/torch",
    "--expt-relaxed-constexpr",
    "-std=c++17",
    "-maxrregcount=64",
  ]);
  assert.equal(flagsFromCompileCommands(cc, join(dir, "missing.cu")), undefined);
  writeFileSync(cc, "{not json");
  assert.throws(() => flagsFromCompileCommands(cc, "x.cu"), /cannot read .*compile_commands\.json/);
});

void test("nvccArgs: a check compiles device code only, with ptxas's report; PTX carries line info", () => {
  assert.deepEqual(nvccArgs("check", "/w/k.cu", "sm_90", ["-I/i"], "/dev/null"), [
    "-cubin",
    "-arch=sm_90",
    "-Xptxas",
    "-v",
    "-I/i",
    "-o",
    "/dev/null",
    "/w/k.cu",
  ]);
  const ptx = nvccArgs("ptx", "/w/k.cu", "sm_80", [], "/tmp/k.ptx");
  assert.ok(ptx.includes("-ptx") && ptx.includes("-lineinfo") && ptx.at(-1) === "/w/k.cu");
});

void test("runNvcc: a real compile that is aborted reports cancelled, not a failure to parse", async () => {
  const nvcc = await resolveNvcc(undefined);
  const ac = new AbortController();
  const run = runNvcc(nvcc, nvccArgs("check", join(fixtures, "kernels.cu"), "sm_90", []), {
    cwd: fixtures,
    timeoutMs: 120_000,
    signal: ac.signal,
  });
  setImmediate(() => ac.abort());
  const r = await run;
  assert.equal(r.cancelled, true);
  assert.equal(r.timedOut, false);
  const already = await runNvcc(nvcc, ["--version"], { cwd: fixtures, timeoutMs: 60_000, signal: ac.signal });
  assert.equal(already.cancelled, true);
});

void test("runNvcc: a compile past its time limit is stopped and says so", async () => {
  const nvcc = await resolveNvcc(undefined);
  const r = await runNvcc(nvcc, nvccArgs("check", join(fixtures, "kernels.cu"), "sm_90", []), {
    cwd: fixtures,
    timeoutMs: 1,
  });
  assert.equal(r.timedOut, true);
  assert.notEqual(r.exitCode, 0);
});

void test("runNvcc: a missing executable is an NvccNotFoundError", async () => {
  await assert.rejects(
    runNvcc("/nonexistent/nvcc", ["--version"], { cwd: fixtures, timeoutMs: 1000 }),
    NvccNotFoundError,
  );
});
