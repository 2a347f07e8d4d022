// The PyTorch sidecar kept between benchmark runs (server/bench/torch/sidecarPool.ts), as the extension
// keeps it: runBenchmark with a fake runner and one SidecarPool across runs. The sidecar is a fake
// "python" (a shell script: torch on a GPU cannot run here) answering each size and each end-of-run
// release; the real sidecar.py's release is run with this machine's python3 (no torch). The GPU
// test (test/gpu/torchBaseline.test.ts) runs the real one with torch and checks its GPU memory.
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { BenchError, runBenchmark } from "../../../server/bench/runBench";
import { SidecarPool } from "../../../server/bench/torch/sidecarPool";
import { SidecarProcess } from "../../../server/bench/torch/sidecarProcess";
import { sidecarPath } from "../../../server/bench/torch/torchBaseline";
import type { Released } from "../../../server/bench/torch/torchProtocol";
import { addLaunchObserver, setLaunchPolicy } from "../../../server/process/launch";
import { trustPolicy } from "../../../server/process/trust";
import { programMissing, skipWithout } from "../../support/needs";
import { torchFixture } from "../../support/torchFixture";
import { cacheDir, dir, fakePython, fakeRunner, okAnswer } from "./torchFakes";
import { allowLaunches } from "../../support/launches";

allowLaunches();

const released = JSON.stringify({ released: { allocatedBytes: 0, baselineBytes: 0, reservedBytes: 0 } });

/** A fake python that answers sizes and releases, and appends its pid to NAME.pids when it starts. */
function pooledPython(name: string, onRelease = "", onSize = ""): string {
  const body = `case "$line" in *'"release"'*) ${onRelease} echo '${released}' ;; *) ${onSize} echo '${okAnswer(true)}' ;; esac`;
  return fakePython(name, body, `echo $$ >> "${dir}/${name}.pids"`);
}

const pidsOf = (name: string): number[] => {
  const file = join(dir, `${name}.pids`);
  return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").map(Number) : [];
};
const requestsOf = (name: string): string[] =>
  readFileSync(join(dir, `${name}.requests`), "utf8")
    .trim()
    .split("\n");

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  for (const t0 = performance.now(); !check();) {
    if (performance.now() - t0 > ms) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
}

const bench = (pool: SidecarPool, pythonPath: string, signal?: AbortSignal, kernel = "twice") =>
  runBenchmark({
    file: torchFixture,
    kernel,
    runner: fakeRunner(),
    cacheDir,
    pythonPath,
    sidecars: pool,
    ...(signal ? { signal } : {}),
  });

test("a pooled sidecar outlives its run: the next run asks the same process, each run's requests whole", async () => {
  const pool = new SidecarPool();
  const python = pooledPython("reuse");
  const launches: string[] = [];
  const stop = addLaunchObserver((e) => {
    if (e.command === python) launches.push(e.outcome);
  });
  try {
    const [a, b] = [await bench(pool, python), await bench(pool, python, undefined, "copy_inputs")];
    assert.ok(a.ok && b.ok);
    assert.equal(b.points[0]!.torch?.speedup, 2.5, "the second run has torch's figures");
    assert.deepEqual(launches, ["started"], "started once, by the first run");
    const [pid] = pidsOf("reuse");
    assert.equal(pidsOf("reuse").length, 1);
    assert.ok(alive(pid!), "alive between runs");
    // Each run: its sizes, then the release; the second run's request names its own kernel's arguments.
    const kinds = requestsOf("reuse").map((l) => JSON.parse(l) as { release?: boolean; expr?: string });
    assert.deepEqual(
      kinds.map((k) => (k.release ? "release" : k.expr)),
      ["x * 2 + 1e-3", "release", "(x, y, z, w, v)", "release"],
    );
    await pool.dispose();
    await until(() => !alive(pid!));
  } finally {
    stop();
    await pool.dispose();
  }
});

test("an idle sidecar is closed after keepAliveMs; keepAliveMs 0 is one per run, closed at its end", async () => {
  const pool = new SidecarPool({ keepAliveMs: 300 });
  const python = pooledPython("idle");
  assert.ok((await bench(pool, python)).ok);
  const [pid] = pidsOf("idle");
  assert.ok(alive(pid!));
  await until(() => !alive(pid!), 3000);

  const none = new SidecarPool({ keepAliveMs: 0 });
  const once = pooledPython("once");
  assert.ok((await bench(none, once)).ok && (await bench(none, once)).ok);
  assert.equal(pidsOf("once").length, 2);
  assert.ok(pidsOf("once").every((p) => !alive(p)));
  assert.ok(!requestsOf("once").some((l) => l.includes("release")), "nothing to release: it exits");
});

test("cancel kills the pooled sidecar, and the next run starts a new one", async () => {
  const pool = new SidecarPool();
  const python = pooledPython("cancel", "", `[ -f "${dir}/cancel.slow" ] && exec sleep 60;`);
  try {
    assert.ok((await bench(pool, python)).ok);
    const [first] = pidsOf("cancel");
    writeFileSync(join(dir, "cancel.slow"), ""); // the next size hangs until killed
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    await assert.rejects(bench(pool, python, controller.signal), (e: BenchError) => e.code === "CANCELLED");
    await until(() => !alive(first!));
    rmSync(join(dir, "cancel.slow"));
    assert.ok((await bench(pool, python)).ok);
    assert.equal(pidsOf("cancel").length, 2, "a new one after the cancel");
  } finally {
    await pool.dispose();
  }
  assert.ok(pidsOf("cancel").every((p) => !alive(p)));
});

test("cancel during the kernel's sizes kills a pooled sidecar too", async () => {
  const pool = new SidecarPool();
  const python = pooledPython("early");
  const controller = new AbortController();
  const runner = fakeRunner();
  await assert.rejects(
    runBenchmark({
      file: torchFixture,
      kernel: "twice",
      runner: {
        request: async (method, params, o) => {
          if (method !== "benchmark") return runner.request(method, params, o);
          await until(() => pidsOf("early").length > 0);
          controller.abort();
          throw new BenchError("CANCELLED", "cancelled");
        },
      },
      cacheDir,
      pythonPath: python,
      sidecars: pool,
      signal: controller.signal,
    }),
    (e: BenchError) => e.code === "CANCELLED",
  );
  await until(() => !alive(pidsOf("early")[0]!));
  await pool.dispose();
});

test("a kept sidecar that died is replaced: killed while idle, or dying at the next run's first request", async () => {
  const pool = new SidecarPool();
  const killed = pooledPython("killed");
  // Answers its release, then exits at the next request without answering it: a death the pool has not seen.
  const dying = pooledPython("dying", "dead=1;", `[ -n "$dead" ] && exit 1;`);
  try {
    assert.ok((await bench(pool, killed)).ok);
    process.kill(pidsOf("killed")[0]!, "SIGKILL");
    await until(() => !alive(pidsOf("killed")[0]!));
    await new Promise((r) => setTimeout(r, 50)); // its exit event, seen
    const r = await bench(pool, killed);
    assert.ok(r.ok && r.points[0]!.torch?.speedup === 2.5);
    assert.equal(pidsOf("killed").length, 2);

    assert.ok((await bench(pool, dying)).ok);
    const again = await bench(pool, dying);
    assert.equal(again.points[0]!.torch?.error, undefined);
    assert.ok(again.ok && again.points[0]!.torch?.speedup === 2.5);
    assert.equal(pidsOf("dying").length, 2);
  } finally {
    await pool.dispose();
  }
  assert.ok([...pidsOf("killed"), ...pidsOf("dying")].every((p) => !alive(p)));
});

test("another Python closes the idle sidecar; so does closeIdle (the setting changed)", async () => {
  const pool = new SidecarPool();
  const [one, two] = [pooledPython("one"), pooledPython("two")];
  try {
    assert.ok((await bench(pool, one)).ok);
    assert.ok((await bench(pool, two)).ok);
    await until(() => !alive(pidsOf("one")[0]!));
    assert.ok(alive(pidsOf("two")[0]!));
    await pool.closeIdle();
    assert.ok(!alive(pidsOf("two")[0]!));
  } finally {
    await pool.dispose();
  }
});

test("a sidecar that does not answer its release is killed, not kept", async () => {
  const pool = new SidecarPool();
  const deaf = pooledPython("deafRelease", "exec sleep 60;");
  try {
    const t0 = performance.now();
    assert.ok((await bench(pool, deaf)).ok);
    assert.ok(performance.now() - t0 < 8000);
    await until(() => !alive(pidsOf("deafRelease")[0]!));
  } finally {
    await pool.dispose();
  }
});

test("untrusted workspace: a pool starts nothing either", async () => {
  const pool = new SidecarPool();
  setLaunchPolicy(trustPolicy(() => false));
  try {
    const r = await bench(pool, pooledPython("denied"));
    assert.match(r.torch!.unavailable!, /was not run: this workspace is in Restricted Mode/);
    assert.deepEqual(pidsOf("denied"), []);
  } finally {
    allowLaunches();
    await pool.dispose();
  }
});

test("100 pooled runs: one sidecar alive at most while warm, none after dispose", async () => {
  const pool = new SidecarPool();
  const python = pooledPython("many");
  try {
    for (let i = 0; i < 100; i++) {
      assert.ok((await bench(pool, python)).ok);
      assert.ok(pidsOf("many").filter(alive).length <= 1);
    }
    assert.equal(pidsOf("many").length, 1, "one process served the 100 runs");
  } finally {
    await pool.dispose();
  }
  assert.ok(pidsOf("many").every((p) => !alive(p)));
});

test("sidecar.py with no torch (this machine's python3): not kept, so installing torch takes effect at once", async () => {
  const python = process.env.PATH?.split(":").find((p) => existsSync(join(p, "python3")));
  if (!python) return;
  const seen: (Released & { pid: number | undefined })[] = [];
  const pool = new SidecarPool({ onReleased: (r) => seen.push(r) });
  try {
    const [a, b] = [await bench(pool, "python3"), await bench(pool, "python3")];
    assert.match(a.torch!.unavailable!, /torch is not importable/);
    assert.match(b.torch!.unavailable!, /torch is not importable/);
    assert.deepEqual(seen, [], "never released: closed instead");
  } finally {
    await pool.dispose();
  }
});

test("sidecar.py answers a release in protocol form and goes on answering", async (t) => {
  const skip = skipWithout("python3", programMissing("python3"));
  if (skip) return t.skip(skip);
  const sidecar = new SidecarProcess("python3", ["-u", sidecarPath()], {});
  try {
    const r = await sidecar.ask(JSON.stringify({ release: true }), 10_000);
    assert.deepEqual(JSON.parse("line" in r ? r.line : "{}"), {
      released: { allocatedBytes: 0, baselineBytes: 0, reservedBytes: 0 },
    });
    const again = await sidecar.ask(JSON.stringify({ release: true }), 10_000);
    assert.ok("line" in again && sidecar.alive);
  } finally {
    await sidecar.close();
  }
  assert.ok(!sidecar.alive);
});
