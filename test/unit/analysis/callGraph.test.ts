// The file-local call graph (server/analysis/callgraph/callGraph.ts) and what it decides for launches
// (launches/launchChecked.ts): which unit holds a node, where each unit is called.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseSource } from "../../../server/lint/lintDocument";
import { FileIndex, kernelLaunches } from "../../../server/analysis/source/fileIndex";
import { callGraph } from "../../../server/analysis/callgraph/callGraph";
import { LaunchChecks } from "../../../server/analysis/launches/launchChecked";
import { BUILTIN_CHECKS } from "../../../server/analysis/launches/launchChecks";

async function index(text: string): Promise<FileIndex> {
  return FileIndex.of({ tree: await parseSource(text), text });
}

const lineOf = (text: string, at: number): number => text.slice(0, at).split("\n").length;

const SRC = `namespace ops {
template <int B> void launch(float* y) { k<B><<<1, B>>>(y); }
struct Runner { void go(float* y); };
void Runner::go(float* y) {
  auto twice = [&](float* p) { launch<64>(p); launch<128>(p); };
  twice(y);
}
}
void top(float* y) { ops::Runner r; r.go(y); ops::launch<32>(y); }
`;

describe("call graph", () => {
  it("names function definitions (templates, out-of-class members) and named lambdas", async () => {
    const idx = await index(SRC);
    const g = callGraph(idx);
    const [launch] = kernelLaunches(idx);
    assert.equal(g.unitAt(launch!.call)?.name, "launch");
    const calls = g.callsNamed("launch");
    assert.deepEqual(
      calls.map((c) => lineOf(SRC, c.start)),
      [5, 5, 9],
    );
    const inLambda = g.unitAt(calls[0]!.call);
    assert.deepEqual([inLambda?.name, inLambda?.kind], ["twice", "lambda"]);
    assert.equal(g.unitAt(calls[2]!.call)?.name, "top");
  });
  it("finds calls through objects and qualified names, not declarations or mentions", async () => {
    const idx = await index(SRC);
    const g = callGraph(idx);
    assert.deepEqual(
      g.callsNamed("go").map((c) => lineOf(SRC, c.start)),
      [9],
    );
    const twice = g.unitAt(g.callsNamed("launch")[0]!.call)!;
    assert.deepEqual(
      g.callsOf(twice).map((c) => lineOf(SRC, c.start)),
      [6],
    );
    assert.deepEqual(g.callsNamed("Runner"), []);
  });
});

describe("launch checked by its callers", () => {
  const checked = async (text: string): Promise<boolean[]> => {
    const idx = await index(text);
    const checks = new LaunchChecks(idx, new Set(BUILTIN_CHECKS));
    return kernelLaunches(idx).map((l) => checks.checked(l.call));
  };
  it("every call followed by a check, up to three callers up", async () => {
    const chain = (n: number): string => {
      let s = "void f0(float* y) { k<<<1, 32>>>(y); }\n";
      for (let i = 1; i <= n; i++) s += `void f${i}(float* y) { f${i - 1}(y); }\n`;
      return s + `void top(float* y) { f${n}(y); cudaGetLastError(); }\n`;
    };
    assert.deepEqual(await checked(chain(0)), [true]);
    assert.deepEqual(await checked(chain(2)), [true]);
    assert.deepEqual(await checked(chain(3)), [false]);
  });
  it("one unchecked call, or no call at all, leaves the launch unchecked", async () => {
    const src = `void f(float* y) { k<<<1, 32>>>(y); }
void a(float* y) { f(y); cudaGetLastError(); }
void b(float* y) { cudaGetLastError(); f(y); }
void g(float* y) { k<<<1, 32>>>(y); }
`;
    assert.deepEqual(await checked(src), [false, false]);
  });
  it("a file's own function that reads the last error is a check; a launcher that checks is not", async () => {
    const src = `static void ok(int line) { if (cudaPeekAtLastError() != cudaSuccess) abort(); }
void h(float* y) { k<<<1, 32>>>(y); cudaGetLastError(); }
void f(float* y) { k<<<1, 32>>>(y); ok(__LINE__); }
void g(float* y) { k<<<1, 32>>>(y); h(y); }
`;
    assert.deepEqual(await checked(src), [true, true, false]);
  });
});
