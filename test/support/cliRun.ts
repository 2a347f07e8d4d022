// Runs the CLI (server/cli/main.ts under tsx) as a real process, for the end-to-end tests. As root,
// file permissions stop nothing, so `asNobody` runs it as uid/gid 65534 where the test needs an
// unreadable file or folder to be unreadable.
import { spawnSync } from "node:child_process";
import { chmodSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { tempDir } from "./tempDir";

const REPO = join(__dirname, "..", "..");
const MAIN = join(REPO, "server", "cli", "main.ts");
// The projects live in a temp folder, where the bare specifier "tsx" would not resolve.
const TSX = pathToFileURL(join(REPO, "node_modules", "tsx", "dist", "loader.mjs")).href;

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Run as an unprivileged user when this process is root (permissions apply to it). */
  asNobody?: boolean;
  input?: string;
}

let nobodyTmp: string | undefined;
/** A temp folder the unprivileged user may write (tsx keeps its cache there). */
function tmpForNobody(): string {
  if (!nobodyTmp) {
    nobodyTmp = tempDir("ckd-nobody-");
    chmodSync(nobodyTmp, 0o1777);
  }
  return nobodyTmp;
}

/** Runs `cuda-kernel-dev ARGS…` to completion. */
export function runCli(o: CliOptions, ...args: string[]): CliRun {
  const nobody = o.asNobody && process.getuid?.() === 0;
  const r = spawnSync(process.execPath, ["--import", TSX, MAIN, ...args], {
    cwd: o.cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      TORCH_CUDA_ARCH_LIST: "",
      ...(nobody ? { TMPDIR: tmpForNobody() } : {}),
      ...o.env,
    },
    ...(nobody ? { uid: 65534, gid: 65534 } : {}),
    ...(o.input !== undefined ? { input: o.input } : {}),
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
