// A compile_commands.json of 100 MB and more (a large CMake project) is read one entry at a time:
// the lint's build reader and the compiler's flag lookup both run inside a 300 MB heap, where reading
// the whole file with JSON.parse needs about 1.5 GB (issue 26, item 7). The reader itself keeps the
// JSON's meaning across its 1 MiB chunks (a character split between two) and rejects what is not an
// array of compile commands.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { closeSync, openSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, it } from "node:test";
import {
  commandArgs,
  forEachCompileCommand,
  splitCommand,
  type CompileCommand,
} from "../../../server/util/compileCommands";
import { runCli } from "../../support/cliRun";
import { tempDir } from "../../support/tempDir";

const REPO = join(__dirname, "..", "..", "..");
const TSX = pathToFileURL(join(REPO, "node_modules", "tsx", "dist", "loader.mjs")).href;
const HEAP = "--max-old-space-size=300";

/** `entries` C++ and CUDA entries (a few flag sets), then the one for k.cu; about 120 MB. */
function writeHuge(dir: string, entries: number): string {
  const path = join(dir, "compile_commands.json");
  const fd = openSync(path, "w");
  const flags =
    "-O3 -std=c++17 -Xcompiler=-fPIC -I/opt/project/include -I/opt/project/third_party/cutlass/include";
  writeSync(fd, "[\n");
  let batch = "";
  for (let i = 0; i < entries; i++) {
    const file = i % 3 === 0 ? `src/ops/op_${i}.cu` : `src/cpu/module_${i}.cpp`;
    const entry = {
      directory: dir,
      file,
      command: `/usr/bin/c++ ${flags} -DSET_${i % 4} -o obj/${i}.o -c ${file}`,
    };
    batch += `${JSON.stringify(entry)},\n`;
    if (batch.length > 1 << 20) {
      writeSync(fd, batch);
      batch = "";
    }
  }
  const last = { directory: dir, file: "k.cu", arguments: ["nvcc", "-DWIDE=2", "-arch=sm_80", "-c", "k.cu"] };
  writeSync(fd, `${batch}${JSON.stringify(last)}\n]\n`);
  closeSync(fd);
  writeFileSync(join(dir, "k.cu"), "__global__ void k(float* x) { x[threadIdx.x] = WIDE; }\n");
  return path;
}

void describe("a compile_commands.json larger than memory would hold parsed", () => {
  const dir = tempDir("ckd-bigcc-");
  const path = writeHuge(dir, 600_000);

  void it("lint --explain-context reads the file's flags inside a 300 MB heap", () => {
    const r = runCli({ cwd: dir, env: { NODE_OPTIONS: HEAP } }, "lint", "--explain-context", "k.cu");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /compile_commands\.json/);
    assert.match(r.stdout, /WIDE=2/);
    assert.match(r.stdout, /sm_80/);
  });

  void it("the compiler's flag lookup finds the last entry inside a 300 MB heap", () => {
    const script = `
      const { flagsFromCompileCommands } = require(${JSON.stringify(join(REPO, "server/compiler/nvcc.ts"))});
      const f = flagsFromCompileCommands(${JSON.stringify(path)}, ${JSON.stringify(join(dir, "k.cu"))});
      process.stdout.write(JSON.stringify(f.args));`;
    const r = spawnSync(process.execPath, [HEAP, "--import", TSX, "-e", script], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    // Targets are dropped: the compile sets its own per architecture.
    assert.deepEqual(JSON.parse(r.stdout), ["-DWIDE=2"]);
  });
});

void describe("forEachCompileCommand", () => {
  const dir = tempDir("ckd-cc-");
  const write = (name: string, text: string): string => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };

  void it("visits every entry in order, the same as JSON.parse, across chunk boundaries", () => {
    // Two-byte and four-byte characters throughout, so some fall across a 1 MiB chunk's end.
    const entries = Array.from({ length: 30_000 }, (_, i) => ({
      directory: `/tmp/é${i}`,
      file: `src/𝔣${i}.cu`,
      arguments: ["nvcc", `-DN=${i}`, "-c", `src/𝔣${i}.cu`],
    }));
    const text = JSON.stringify(entries);
    assert.ok(Buffer.byteLength(text) > 3 << 20, "the file spans several chunks");
    const seen: CompileCommand[] = [];
    forEachCompileCommand(write("many.json", text), (e) => void seen.push(e));
    assert.deepEqual(seen, JSON.parse(text));
  });

  void it("stops when the visitor says so", () => {
    const path = write("stop.json", JSON.stringify([{ file: "a.cu" }, { file: "b.cu" }, { file: "c.cu" }]));
    const seen: unknown[] = [];
    forEachCompileCommand(path, (e) => {
      seen.push(e.file);
      return e.file === "b.cu";
    });
    assert.deepEqual(seen, ["a.cu", "b.cu"]);
  });

  void it("rejects what is not a JSON array, and damaged JSON", () => {
    assert.throws(
      () => forEachCompileCommand(write("obj.json", '{"file": "a.cu"}'), () => {}),
      /not a JSON array/,
    );
    assert.throws(() => forEachCompileCommand(write("empty.json", "  \n"), () => {}), /not a JSON array/);
    assert.throws(() => forEachCompileCommand(write("cut.json", '[{"file": "a.cu"}, {"fi'), () => {}));
    assert.throws(() => forEachCompileCommand(write("junk.json", '[{"file": "a.cu"} junk]'), () => {}));
  });

  void it("reads an entry's arguments, or its command split as a shell would for CMake's quoting", () => {
    assert.deepEqual(commandArgs({ arguments: ["nvcc", 3, "-c"] }), ["nvcc", "-c"]);
    assert.deepEqual(splitCommand(`nvcc -DNAME="a b" -I'/x y' -c  f.cu`), [
      "nvcc",
      "-DNAME=a b",
      "-I/x y",
      "-c",
      "f.cu",
    ]);
    assert.deepEqual(splitCommand(`a\\ b ""`), ["a b", ""]);
  });
});
