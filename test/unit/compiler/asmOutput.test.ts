import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { asmOutput, AsmToolError } from "../../../server/compiler/asmOutput";
import { resolveNvcc } from "../../../server/compiler/nvcc";
import { tempDir } from "../../support/tempDir";
import { allowLaunches } from "../../support/launches";

allowLaunches();

const fixtures = join(__dirname, "../../fixtures/compiler");
const flags = { args: [], cwd: fixtures, from: "settings" as const };

/** A toolkit folder: nvcc (the real one, wrapped) and the given fake tools, which check they got a real cubin. */
async function toolkit(tools: Record<string, string>): Promise<string> {
  const dir = tempDir("toolkit-");
  const real = await resolveNvcc(undefined);
  writeFileSync(join(dir, "nvcc"), `#!/bin/sh\nexec "${real}" "$@"\n`);
  chmodSync(join(dir, "nvcc"), 0o755);
  for (const [name, body] of Object.entries(tools)) {
    writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(dir, name), 0o755);
  }
  return join(dir, "nvcc");
}

// The fake checks it got exactly these flags then an ELF cubin that nvcc just wrote, and prints real output.
function fakeTool(flagsWanted: string[], fixture: string): string {
  const checks = [
    `[ "$#" = "${flagsWanted.length + 1}" ]`,
    ...flagsWanted.map((f, i) => `[ "$${i + 1}" = "${f}" ]`),
  ].join(" && ");
  const cubin = `$${flagsWanted.length + 1}`;
  return [
    `${checks} || { echo "bad args: $*" >&2; exit 2; }`,
    `[ "$(head -c4 "${cubin}" | tail -c3)" = "ELF" ] || { echo "not a cubin" >&2; exit 3; }`,
    `cat "${join(fixtures, "sass", fixture)}"`,
  ].join("\n");
}

void test("PTX: real nvcc -ptx -lineinfo for one architecture", async () => {
  const nvcc = await resolveNvcc(undefined);
  const out = await asmOutput({
    kind: "ptx",
    file: join(fixtures, "rmsnorm.cu"),
    arch: "sm_80",
    nvcc,
    flags,
    timeoutMs: 120_000,
  });
  assert.equal(out.tool, "nvcc");
  assert.match(out.text, /^\.target sm_80$/m);
  assert.match(out.text, /\.entry _Z11rmsnorm_vec/);
  assert.match(out.text, /^\s*\.loc\s+1 \d+ \d+/m);
});

void test("SASS: nvdisasm -g -c on a real -lineinfo cubin, preferred over cuobjdump", async () => {
  const nvcc = await toolkit({
    nvdisasm: fakeTool(["-g", "-c"], "rmsnorm.sm_90.nvdisasm.txt"),
    cuobjdump: "echo should not run >&2; exit 9",
  });
  const out = await asmOutput({
    kind: "sass",
    file: join(fixtures, "rmsnorm.cu"),
    arch: "sm_90",
    nvcc,
    flags,
    timeoutMs: 120_000,
    env: { PATH: "" },
  });
  assert.equal(out.tool, "nvdisasm");
  assert.equal(out.text, readFileSync(join(fixtures, "sass/rmsnorm.sm_90.nvdisasm.txt"), "utf8"));
});

void test("SASS: cuobjdump -sass when there is no nvdisasm; a clear error when there is neither", async () => {
  const withCuobjdump = await toolkit({ cuobjdump: fakeTool(["-sass"], "rmsnorm.sm_90.cuobjdump-sass.txt") });
  const out = await asmOutput({
    kind: "sass",
    file: join(fixtures, "rmsnorm.cu"),
    arch: "sm_90",
    nvcc: withCuobjdump,
    flags,
    timeoutMs: 120_000,
    env: { PATH: "" },
  });
  assert.equal(out.tool, "cuobjdump");
  assert.match(out.text, /Function : _Z11rmsnorm_vec/);
  const bare = await toolkit({});
  await assert.rejects(
    asmOutput({
      kind: "sass",
      file: join(fixtures, "rmsnorm.cu"),
      arch: "sm_90",
      nvcc: bare,
      flags,
      timeoutMs: 120_000,
      env: { PATH: "" },
    }),
    (e: unknown) => e instanceof AsmToolError && /SASS needs nvdisasm or cuobjdump/.test(e.message),
  );
});

void test("a file that does not compile: the first nvcc error, as a message", async () => {
  const nvcc = await resolveNvcc(undefined);
  await assert.rejects(
    asmOutput({
      kind: "ptx",
      file: join(fixtures, "broken/syntax_error.cu"),
      arch: "sm_90",
      nvcc,
      flags,
      timeoutMs: 120_000,
    }),
    (e: unknown) => e instanceof AsmToolError && e.message === 'nvcc: syntax_error.cu(4): expected a ";"',
  );
});
