// A real VS Code (code-server) with the packaged extension installed, for UI tests and `npm start`.
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { execFileSync } from "node:child_process";
import { tempDir } from "./tempDir";

export const repoRoot = resolve(__dirname, "../..");
export const codeServerBin = join(repoRoot, ".tools/code-server/node_modules/.bin/code-server");
export const vsixPath = join(repoRoot, "dist/cuda-kernel-dev.vsix");

export interface CodeServer {
  url: string;
  workspace: string;
  userDataDir: string;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Folder to open; UI tests pass a scratch copy of examples/. */
  workspace: string;
  /** User settings merged over the defaults below. */
  settings?: Record<string, unknown>;
  port?: number;
  extensionsDir?: string;
  /** Print code-server's output (npm start). */
  inheritOutput?: boolean;
}

const defaultSettings = {
  "workbench.startupEditor": "none",
  "workbench.welcomePage.walkthroughs.openOnInstall": false,
  "workbench.tips.enabled": false,
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "update.mode": "none",
  "editor.minimap.enabled": false,
  "git.openRepositoryInParentFolders": "never",
};

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once("error", rej);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => res(port));
    });
  });
}

/** Installs the packaged .vsix into an extensions folder (offline), once per vsix build. */
export function installExtension(extensionsDir: string): void {
  if (!existsSync(codeServerBin))
    throw new Error(`code-server is not installed: run bash test/support/ensure-tools.sh`);
  if (!existsSync(vsixPath)) throw new Error(`${vsixPath} is missing: run npm run package`);
  // The folder is ours alone: start it afresh so VS Code's install bookkeeping never blocks a reinstall.
  rmSync(extensionsDir, { recursive: true, force: true });
  mkdirSync(extensionsDir, { recursive: true });
  execFileSync(
    codeServerBin,
    ["--extensions-dir", extensionsDir, "--install-extension", vsixPath, "--force"],
    {
      stdio: "pipe",
    },
  );
}

/** A scratch copy of a folder, so tests that edit files never touch the repository. */
export function scratchCopy(folder: string): string {
  const dir = tempDir("ckd-ws-");
  cpSync(folder, dir, { recursive: true });
  return dir;
}

async function waitHealthy(url: string, proc: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`code-server exited with code ${proc.exitCode}`);
    try {
      const r = await fetch(`${url}/healthz`);
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`code-server did not answer at ${url} within ${timeoutMs} ms`);
}

export async function startCodeServer(opts: StartOptions): Promise<CodeServer> {
  const port = opts.port ?? (await freePort());
  // Removed when the test process exits, with code-server's own temporary files (its IPC and git sockets)
  // in a TMPDIR inside it: the suite leaves nothing in the temp folder.
  const userDataDir = tempDir("ckd-user-");
  mkdirSync(join(userDataDir, "User"), { recursive: true });
  mkdirSync(join(userDataDir, "tmp"));
  writeFileSync(
    join(userDataDir, "User/settings.json"),
    JSON.stringify({ ...defaultSettings, ...opts.settings }, null, 2),
  );
  const extensionsDir = opts.extensionsDir ?? join(repoRoot, ".tools/extensions");
  const args = [
    "--auth",
    "none",
    "--bind-addr",
    `127.0.0.1:${port}`,
    "--disable-telemetry",
    "--disable-update-check",
    "--disable-workspace-trust",
    "--user-data-dir",
    userDataDir,
    "--extensions-dir",
    extensionsDir,
    opts.workspace,
  ];
  if (opts.settings?.["security.workspace.trust.enabled"] === true)
    args.splice(args.indexOf("--disable-workspace-trust"), 1);
  const proc = spawn(codeServerBin, args, {
    stdio: opts.inheritOutput ? "inherit" : "ignore",
    detached: true,
    env: { ...process.env, CS_DISABLE_GETTING_STARTED_OVERRIDE: "1", TMPDIR: join(userDataDir, "tmp") },
  });
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(url, proc, 60_000);
  return {
    url,
    workspace: opts.workspace,
    userDataDir,
    async stop() {
      if (proc.exitCode !== null || proc.pid === undefined) return;
      const exited = new Promise<void>((r) => proc.once("exit", () => r()));
      try {
        process.kill(-proc.pid, "SIGTERM");
      } catch {
        return;
      }
      const timer = setTimeout(() => {
        try {
          if (proc.pid !== undefined) process.kill(-proc.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }, 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
