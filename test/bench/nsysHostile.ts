// The hostile exports of issue 26 in `npm run bench:nsys`: `nsys summarize` on the 4 KB recursive
// view and the 8 KB zeroblob view as a whole CLI process (its exit code, wall time, and the peak
// RSS of the CLI and of its reader process, from /proc), and the two views' queries run in the
// reader process with no schema check, under the budget an 8 KB export gets: what the budgets hold
// if a hostile file ever got past the check. Linux (/proc); prints figures, asserts nothing.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { IsolatedError, runIsolated, type IsolatedStats } from "../../server/process/isolated";
import { readerBudget } from "../../server/profile/nsysReaderClient";
import { writeHostile } from "../unit/profile/nsysHostileExports";
import type { ChildRequest } from "../unit/process/isolatedChild";

const ROOT = join(__dirname, "../..");

/** VmHWM (peak RSS) of PID in MB; undefined once it is gone. */
function peakMb(pid: number): number | undefined {
  try {
    const m = /^VmHWM:\s*(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The pids whose parent is PID. */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      // "pid (comm) state ppid ...": comm may hold spaces, so read after its closing parenthesis
      const stat = readFileSync(`/proc/${e}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) out.push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

interface CliFigures {
  code: number | null;
  ms: number;
  cliMb: number;
  readerMb: number;
  stderr: string;
}

/** Runs the CLI (dist/cli.js when built, else the source under tsx) on ARGS, watching its processes. */
function runCliWatched(args: string[]): Promise<CliFigures> {
  const built = join(ROOT, "dist/cli.js");
  const argv = existsSync(built) ? [built] : ["--import", "tsx", join(ROOT, "server/cli/main.ts")];
  const t0 = performance.now();
  const child = spawn(process.execPath, [...argv, ...args], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
  const peaks = new Map<number, number>();
  const watch = setInterval(() => {
    for (const pid of [child.pid!, ...childrenOf(child.pid!)]) {
      const mb = peakMb(pid);
      if (mb !== undefined) peaks.set(pid, Math.max(peaks.get(pid) ?? 0, mb));
    }
  }, 10);
  return new Promise((resolve) => {
    child.on("exit", (code) => {
      clearInterval(watch);
      const cliMb = peaks.get(child.pid!) ?? 0;
      peaks.delete(child.pid!);
      const readerMb = Math.max(0, ...peaks.values());
      resolve({ code, ms: performance.now() - t0, cliMb, readerMb, stderr: stderr.trim() });
    });
  });
}

/** One of the views' queries in the reader process, no schema check, the 8 KB export's budget. */
async function rawQuery(what: ChildRequest["do"]): Promise<string> {
  const budget = readerBudget(8192);
  let stats: IsolatedStats | undefined;
  const child = join(ROOT, "test/unit/process/isolatedChild.ts");
  const said = await runIsolated(
    child,
    { do: what },
    { tool: "the bench's child", budget, onEnd: (s) => (stats = s) },
  ).then(
    () => "answered (!)",
    (e: unknown) => (e instanceof IsolatedError ? `${e.reason}: ${e.message}` : String(e)),
  );
  const peak = stats?.peakRssMb === undefined ? "?" : stats.peakRssMb.toFixed(0);
  return `${said} after ${((stats?.wallMs ?? 0) / 1000).toFixed(1)} s, reader peak RSS ${peak} MB (budget ${budget.seconds} s, ${budget.memoryMb} MB); host RSS ${(process.memoryUsage.rss() / 1e6).toFixed(0)} MB`;
}

export async function hostileFigures(dir: string, runs = 3): Promise<void> {
  if (process.platform !== "linux") return console.log("hostile exports: figures need /proc (Linux)");
  for (const name of ["recursive-view", "zeroblob-view"] as const) {
    const file = await writeHostile(dir, name);
    const figures: CliFigures[] = [];
    for (let i = 0; i < runs; i++) figures.push(await runCliWatched(["nsys", "summarize", file]));
    const f = (k: "ms" | "cliMb" | "readerMb", d = 0) => figures.map((x) => x[k].toFixed(d)).join("/");
    console.log(
      `hostile ${name}.sqlite (CLI ${existsSync(join(ROOT, "dist/cli.js")) ? "dist/cli.js" : "from source"}, ${runs} runs): ` +
        `exit ${figures.map((x) => x.code).join("/")}, ${f("ms")} ms, peak RSS CLI ${f("cliMb")} MB, reader ${f("readerMb")} MB: ${figures[0]!.stderr}`,
    );
  }
  console.log(`recursive view's query, unchecked, in the reader process: ${await rawQuery("spin-sql")}`);
  console.log(`zeroblob view's query, unchecked, in the reader process: ${await rawQuery("zeroblob-sql")}`);
}
