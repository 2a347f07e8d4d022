// The process launcher with real processes: hostile file names stay single arguments and run
// nothing, timeouts and cancellation end the process (SIGKILL when SIGTERM is ignored), missing
// and non-executable programs give clear errors, and the policy/observer hooks see every launch:
// with no policy installed nothing starts, and one policy serves every copy of the launcher.
import assert from "node:assert/strict";
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, afterEach, describe, it } from "node:test";
import { build } from "esbuild";
import {
  addLaunchObserver,
  LaunchError,
  runProcess,
  setLaunchPolicy,
  spawnChecked,
  type LaunchEvent,
} from "../../../server/process/launch";
import { allowLaunches } from "../../support/launches";
import { tempDir } from "../../support/tempDir";

const dir = tempDir("ckd-launch-");

/** A script that touches a marker file when it runs: a launch that was refused leaves no marker. */
function markerScript(name: string): { marker: string; script: string } {
  const marker = join(dir, name);
  const script = join(dir, `writes-${name}.sh`);
  writeFileSync(script, `#!/bin/sh\ntouch '${marker}'\n`);
  chmodSync(script, 0o755);
  return { marker, script };
}
after(() => rmSync(dir, { recursive: true, force: true }));
allowLaunches();
afterEach(allowLaunches);

// Each of these, if a shell ever saw it, would create a file in `dir` or break the argument apart.
const HOSTILE = [
  "kernel with spaces.cu",
  `it's "quoted".cu`,
  `$(touch ${join(dir, "pwned-dollar")}).cu`,
  "`touch " + join(dir, "pwned-backtick") + "`.cu",
  `a; touch ${join(dir, "pwned-semicolon")}.cu`,
  `b | touch ${join(dir, "pwned-pipe")} &.cu`,
  "-dash-first.cu",
  "tab\tand\nnewline.cu",
];

const pwned = (): string[] => readdirSync(dir).filter((f) => f.startsWith("pwned"));

describe("launcher: arguments are never seen by a shell", () => {
  it("hostile names reach the program as single, unchanged arguments", async () => {
    const r = await runProcess(process.execPath, [
      "-e",
      "process.stdout.write(JSON.stringify(process.argv.slice(1)))",
      ...HOSTILE,
    ]);
    assert.equal(r.exitCode, 0);
    assert.deepEqual(JSON.parse(r.stdout), HOSTILE);
    assert.deepEqual(pwned(), []);
  });

  it("files with hostile names are read, and a program with a hostile name runs", async () => {
    for (const name of HOSTILE) {
      const file = join(dir, name.replace(/\//g, "_"));
      writeFileSync(file, `content of ${name}`);
      const r = await runProcess("/bin/cat", ["--", file]);
      assert.equal(r.stdout, `content of ${name}`);
    }
    const script = join(dir, "run $(touch pwned-script) `x`.sh");
    writeFileSync(script, '#!/bin/sh\necho "ran with $# args: $1"\n');
    chmodSync(script, 0o755);
    const r = await runProcess(script, ["$(id)"]);
    assert.equal(r.stdout.trim(), "ran with 1 args: $(id)");
    assert.deepEqual(pwned(), []);
  });
});

describe("launcher: ending processes", () => {
  it("a timeout sends SIGTERM to a sleeping process", async () => {
    const r = await runProcess("sleep", ["30"], { timeoutMs: 100 });
    assert.equal(r.timedOut, true);
    assert.equal(r.signal, "SIGTERM");
  });

  it("a process that ignores SIGTERM gets SIGKILL after the grace period", async () => {
    // Cancel only once it says its SIGTERM handler is installed.
    const ignoreTerm = "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000); console.log('up')";
    const ac = new AbortController();
    const r = await runProcess(process.execPath, ["-e", ignoreTerm], {
      signal: ac.signal,
      killGraceMs: 200,
      onLine: (l) => l === "up" && ac.abort(),
    });
    assert.equal(r.cancelled, true);
    assert.equal(r.signal, "SIGKILL");
  });

  it("a grandchild holding the pipes open does not keep the result waiting", async () => {
    // sh exits at once on SIGTERM; its background sleep keeps stdout open.
    const r = await runProcess("sh", ["-c", "sleep 30 & wait"], { timeoutMs: 100 });
    assert.equal(r.timedOut, true);
  });

  it("an AbortSignal cancels a running process, and an aborted one never starts", async () => {
    const ac = new AbortController();
    const running = runProcess("sleep", ["30"], { signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    const r = await running;
    assert.equal(r.cancelled, true);
    assert.notEqual(r.exitCode, 0);

    const seen: LaunchEvent[] = [];
    const stop = addLaunchObserver((e) => seen.push(e));
    const r2 = await runProcess("sleep", ["30"], { signal: AbortSignal.abort() });
    stop();
    assert.equal(r2.cancelled, true);
    assert.deepEqual(seen, []);
  });

  it("exit codes, stdout, stderr and lines come back", async () => {
    const lines: string[] = [];
    const r = await runProcess(
      process.execPath,
      ["-e", "console.log('a\\nb'); console.error('c'); process.exit(3)"],
      {
        onLine: (l) => lines.push(l),
      },
    );
    assert.equal(r.exitCode, 3);
    assert.equal(r.stdout, "a\nb\n");
    assert.equal(r.stderr, "c\n");
    assert.deepEqual(lines.sort(), ["a", "b", "c"]);
  });
});

describe("launcher: endless output", () => {
  it("is capped (the end dropped, flagged), while onLine still sees every line", async () => {
    let seen = 0;
    const r = await runProcess(
      process.execPath,
      ["-e", "for (let i = 0; i < 20000; i++) console.log('line ' + i + ' ' + 'x'.repeat(80))"],
      { maxOutputChars: 100_000, onLine: () => seen++ },
    );
    assert.equal(r.exitCode, 0);
    assert.equal(r.truncated, true);
    assert.equal(r.stdout.length, 100_000);
    assert.ok(r.stdout.startsWith("line 0 "));
    assert.equal(seen, 20000);
  });
});

describe("launcher: clear errors", () => {
  it("a missing program names the tool and the setting", async () => {
    await assert.rejects(
      runProcess("nvcc-does-not-exist", ["--version"], { tool: "nvcc", setting: "cudaKernelDev.nvcc.path" }),
      (e) =>
        e instanceof LaunchError &&
        e.code === "NOT_FOUND" &&
        e.message ===
          'nvcc was not found at "nvcc-does-not-exist": set cudaKernelDev.nvcc.path or put it on PATH',
    );
    await assert.rejects(
      runProcess("/nonexistent/ncu", []),
      (e) => e instanceof LaunchError && e.code === "NOT_FOUND",
    );
  });

  it("a file that is not executable says so", async () => {
    const f = join(dir, "not-executable");
    writeFileSync(f, "#!/bin/sh\n");
    chmodSync(f, 0o644);
    await assert.rejects(
      runProcess(f, [], { tool: "ncu" }),
      (e) => e instanceof LaunchError && e.code === "NOT_EXECUTABLE" && /ncu/.test(e.message),
    );
  });
});

describe("launcher: policy and observers", () => {
  it("observers see every launch with its arguments", async () => {
    const seen: LaunchEvent[] = [];
    const stop = addLaunchObserver((e) => seen.push(e));
    await runProcess("true", ["x y"], { tool: "probe" });
    stop();
    await runProcess("true", []);
    assert.deepEqual(seen, [{ tool: "probe", command: "true", args: ["x y"], outcome: "started" }]);
  });

  it("a denying policy starts nothing and says why", async () => {
    const { marker, script } = markerScript("marker-policy");
    const seen: LaunchEvent[] = [];
    const stop = addLaunchObserver((e) => seen.push(e));
    setLaunchPolicy((req) => `${req.tool} is not run in an untrusted workspace`);
    await assert.rejects(
      runProcess(script, [], { tool: "nvcc" }),
      (e) =>
        e instanceof LaunchError &&
        e.code === "DENIED" &&
        e.message === "nvcc is not run in an untrusted workspace",
    );
    assert.throws(
      () => spawnChecked(script, [], { tool: "the GPU runner" }),
      (e) => e instanceof LaunchError && e.code === "DENIED",
    );
    stop();
    assert.equal(existsSync(marker), false);
    assert.deepEqual(
      seen.map((e) => e.outcome),
      ["denied", "denied"],
    );
    allowLaunches();
    await runProcess(script, []);
    assert.equal(existsSync(marker), true);
  });

  it("a throwing observer does not change the launch", async () => {
    const stop = addLaunchObserver(() => {
      throw new Error("observer bug");
    });
    const r = await runProcess("echo", ["ok"]);
    stop();
    assert.equal(r.stdout, "ok\n");
  });
});

describe("launcher: the policy, whichever copy asks", () => {
  it("with no policy installed, every launch is refused with DENIED and nothing starts", async () => {
    const { marker, script } = markerScript("marker-no-policy");
    const seen: LaunchEvent[] = [];
    const stop = addLaunchObserver((e) => seen.push(e));
    setLaunchPolicy(undefined);
    const noPolicy = /^nvcc was not run: no launch policy is installed in this process/;
    await assert.rejects(
      runProcess(script, [], { tool: "nvcc" }),
      (e) => e instanceof LaunchError && e.code === "DENIED" && noPolicy.test(e.message),
    );
    assert.throws(
      () => spawnChecked(script, [], { tool: "the GPU runner" }),
      (e) => e instanceof LaunchError && e.code === "DENIED",
    );
    stop();
    assert.equal(existsSync(marker), false);
    assert.deepEqual(
      seen.map((e) => `${e.tool}: ${e.outcome}`),
      ["nvcc: denied", "the GPU runner: denied"],
    );
  });

  it("one policy for every copy of the launcher (each extension bundle holds its own)", async () => {
    const out = join(dir, "launch-copy.js");
    await build({
      entryPoints: [join(__dirname, "..", "..", "..", "server", "process", "launch.ts")],
      bundle: true,
      platform: "node",
      format: "cjs",
      outfile: out,
      external: ["execa", "signal-exit"],
      logLevel: "silent",
    });
    const copy = createRequire(__filename)(out) as typeof import("../../../server/process/launch");
    assert.notEqual(copy.runProcess, runProcess, "a second copy of the module");
    setLaunchPolicy((req) => `${req.tool}: refused here`);
    assert.throws(
      () => copy.spawnChecked("true", []),
      (e) => e instanceof Error && e.message === "true: refused here",
    );
    copy.setLaunchPolicy(undefined);
    assert.throws(() => spawnChecked("true", [], { tool: "nvcc" }), /nvcc was not run: no launch policy/);
    copy.setLaunchPolicy(copy.allowEveryLaunch);
    const child = copy.spawnChecked("true", [], { tool: "probe" });
    assert.equal(await new Promise((r) => child.on("exit", r)), 0);
    const seen: string[] = [];
    const stop = copy.addLaunchObserver((e) => seen.push(e.tool));
    await runProcess("true", [], { tool: "seen-by-the-copy" });
    stop();
    assert.deepEqual(seen, ["seen-by-the-copy"]);
  });
});

describe("launcher: the only way to start a process", () => {
  it("no other module of the extension, server or runner client imports child_process", () => {
    const repo = join(__dirname, "..", "..", "..");
    const offenders: string[] = [];
    for (const dir of ["server", "extension", "native/runner"])
      for (const f of readdirSync(join(repo, dir), { recursive: true, encoding: "utf8" })) {
        if (!f.endsWith(".ts") || join(dir, f) === join("server", "process", "launch.ts")) continue;
        const text = readFileSync(join(repo, dir, f), "utf8");
        // Type-only imports (ChildProcess in signatures) start nothing.
        if (
          /^import (?!type\b)[^;]*from "(node:)?child_process"|require\(["'](node:)?child_process["']\)|from "execa"|import\(["']execa["']\)/m.test(
            text,
          )
        )
          offenders.push(join(dir, f));
      }
    assert.deepEqual(offenders, []);
  });
});
