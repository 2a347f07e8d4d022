// Workspace Trust at unit level: a cloned workspace whose .vscode/settings.json points nvcc, ncu,
// nsys, nvidia-smi and the runner at its own script gets zero launches while untrusted (the spy on
// the launcher sees none, the script's marker file never appears). After trust is granted the
// workspace's choice of program is still not used: those settings are `machine`-scoped in
// package.json (checked here), so VS Code's configuration never returns a workspace's value for them
// and the extension's Settings (extension/settingValues.ts) fall back to the user's value or the
// default. Also: the language server bundle cannot start a process at all.
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, afterEach, before, describe, it } from "node:test";
import { build } from "esbuild";
import { compileForArchs } from "../../../server/compiler/compileFile";
import { profile } from "../../../server/profile/ncuCli";
import { nsysProfileReport } from "../../../server/profile/nsysProfile";
import { queryNvidiaSmi } from "../../../server/profile/nvidiaSmi";
import { addLaunchObserver, setLaunchPolicy, type LaunchEvent } from "../../../server/process/launch";
import { trustPolicy } from "../../../server/process/trust";
import { RunnerClient } from "../../../native/runner/runnerClient";
import { Settings } from "../../../extension/settingValues";
import { tempDir } from "../../support/tempDir";

const REPO = join(__dirname, "..", "..", "..");
const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
  capabilities: { untrustedWorkspaces: { supported: string; restrictedConfigurations?: string[] } };
  contributes: {
    configuration: {
      properties: Record<string, { scope?: string; description?: string; markdownDescription?: string }>;
    };
  };
};
const settings = pkg.contributes.configuration.properties;

// Settings that name a program, its arguments, flags or include paths.
const PROGRAM_SETTING = /\.(path|extraArgs|includePaths|args|flags|ccbin|hostCompiler)$/i;

describe("package.json: settings that name programs or their arguments", () => {
  it("are machine-scoped and restricted in untrusted workspaces", () => {
    const named = Object.keys(settings).filter((k) => PROGRAM_SETTING.test(k));
    assert.ok(
      named.includes("cudaKernelDev.nvcc.path") && named.includes("cudaKernelDev.ncu.path"),
      named.join(),
    );
    const restricted = new Set(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations ?? []);
    for (const k of named) {
      assert.equal(settings[k]!.scope, "machine", `${k} must be machine-scoped`);
      assert.ok(restricted.has(k), `${k} must be in restrictedConfigurations`);
    }
    assert.equal(pkg.capabilities.untrustedWorkspaces.supported, "limited");
    for (const k of restricted)
      assert.ok(k in settings, `restrictedConfigurations names an unknown setting ${k}`);
  });

  it("every setting a tool's command line is built from is restricted", () => {
    const restricted = new Set(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations ?? []);
    const flagSettings = Object.keys(settings).filter((k) =>
      /^cudaKernelDev\.(nvcc|ncu|nsys|nvidiaSmi|bench)\./.test(k),
    );
    const unrestricted = flagSettings.filter(
      (k) => !restricted.has(k) && !/\.(checkOnSave|debounceMs|timeoutSeconds)$/.test(k),
    );
    assert.deepEqual(unrestricted, []);
  });
});

/** A cloned workspace whose .vscode/settings.json points every tool at its own script. */
interface HostileWorkspace {
  ws: string;
  /** Written by the script when anything runs it. */
  marker: string;
  evil: string;
  kernel: string;
  /** The program settings its .vscode/settings.json sets. */
  wsSettings: Record<string, string | string[]>;
}

function hostileWorkspace(): HostileWorkspace {
  const ws = tempDir("ckd-untrusted-");
  const evil = join(ws, "tools", "evil.sh");
  const wsSettings = {
    "cudaKernelDev.nvcc.path": evil,
    "cudaKernelDev.ncu.path": evil,
    "cudaKernelDev.nsys.path": evil,
    "cudaKernelDev.nvidiaSmi.path": evil,
    "cudaKernelDev.nvcc.extraArgs": ["-ccbin", evil],
  };
  return { ws, marker: join(ws, "MARKER-script-ran"), evil, kernel: join(ws, "k.cu"), wsSettings };
}

function writeHostileWorkspace({ ws, marker, evil, kernel, wsSettings }: HostileWorkspace): void {
  mkdirSync(join(ws, "tools"));
  mkdirSync(join(ws, ".vscode"));
  writeFileSync(evil, `#!/bin/sh\necho "$0 $*" >> '${marker}'\n`);
  chmodSync(evil, 0o755);
  writeFileSync(kernel, "__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n");
  writeFileSync(join(ws, ".vscode", "settings.json"), JSON.stringify(wsSettings, null, 2));
}

/**
 * The extension's settings as VS Code serves them for this workspace: a `machine`-scoped setting's
 * workspace value is never returned (the user has set none here), so every read gets undefined and
 * Settings takes the default.
 */
function machineScopedSettings(): Settings {
  return new Settings({
    get: <T>(key: string): T | undefined => {
      const name = `cudaKernelDev.${key}`;
      if (PROGRAM_SETTING.test(name)) assert.equal(settings[name]?.scope, "machine", name);
      return undefined;
    },
  });
}

/** Each path the extension takes to run a tool, with the program the workspace asked for. */
async function attemptEveryTool(
  { ws, evil, kernel }: HostileWorkspace,
  program: (setting: string) => string,
): Promise<void> {
  const tries: Promise<unknown>[] = [
    compileForArchs({
      file: kernel,
      archs: ["sm_90"],
      nvcc: program("cudaKernelDev.nvcc.path"),
      flags: { args: ["-ccbin", evil], cwd: ws, from: "settings" },
      timeoutMs: 60_000,
    }),
    profile({
      ncuPath: program("cudaKernelDev.ncu.path"),
      command: [evil],
      report: join(ws, "r"),
      set: "basic",
      clockControl: "base",
    }),
    nsysProfileReport({
      nsysPath: program("cudaKernelDev.nsys.path"),
      command: [evil],
      report: join(ws, "n.nsys-rep"),
    }),
    queryNvidiaSmi(program("cudaKernelDev.nvidiaSmi.path")),
    (async () => {
      const client = new RunnerClient({ runnerPath: evil, execPath: evil, execArgv: [], maxRestarts: 0 });
      try {
        await client.request("devices", {});
      } finally {
        await client.dispose();
      }
    })(),
  ];
  await Promise.allSettled(tries);
}

describe("an untrusted workspace that points the tools at its own script", () => {
  const hostile = hostileWorkspace();
  const { ws, marker, evil, kernel, wsSettings } = hostile;
  let trusted = false;
  let launches: LaunchEvent[] = [];
  let stopSpy: () => void = () => undefined;

  before(() => {
    writeHostileWorkspace(hostile);
    setLaunchPolicy(trustPolicy(() => trusted));
    stopSpy = addLaunchObserver((e) => launches.push(e));
  });
  after(() => {
    stopSpy();
    setLaunchPolicy(undefined);
    rmSync(ws, { recursive: true, force: true });
  });
  afterEach(() => {
    launches = [];
  });
  const attempts = (program: (setting: string) => string): Promise<void> =>
    attemptEveryTool(hostile, program);

  it("untrusted: nothing starts, every attempt is denied, the script never runs", async () => {
    trusted = false;
    await attempts((k) => wsSettings[k] as string);
    assert.deepEqual(
      launches.filter((e) => e.outcome === "started"),
      [],
    );
    assert.ok(
      launches.length >= 5,
      `every tool was attempted and denied: ${launches.map((e) => e.tool).join()}`,
    );
    assert.equal(existsSync(marker), false);
  });

  it("untrusted, with the programs the extension's settings name: still nothing starts", async () => {
    trusted = false;
    const s = machineScopedSettings();
    const nvcc = await s.nvccExecutable();
    const programs: Record<string, string> = {
      "cudaKernelDev.nvcc.path": nvcc,
      "cudaKernelDev.ncu.path": s.ncu.path,
      "cudaKernelDev.nsys.path": s.nsysPath,
      "cudaKernelDev.nvidiaSmi.path": s.nvidiaSmiPath,
    };
    assert.ok(!Object.values(programs).includes(evil));
    await attempts((k) => programs[k]!);
    assert.deepEqual(
      launches.filter((e) => e.outcome === "started"),
      [],
    );
    assert.equal(existsSync(marker), false);
  });

  it("after trust is granted, the workspace's script is still not the program that runs", async () => {
    trusted = true;
    const s = machineScopedSettings();
    const nvcc = await s.nvccExecutable();
    assert.notEqual(nvcc, evil);
    const r = await compileForArchs({
      file: kernel,
      archs: ["sm_90"],
      nvcc,
      flags: { args: s.nvcc.extraArgs, cwd: ws, from: "settings" },
      timeoutMs: 120_000,
    });
    assert.equal(r[0]!.run.exitCode, 0, r[0]!.run.output);
    const started = launches.filter((e) => e.outcome === "started");
    assert.ok(started.length >= 1);
    for (const e of started) assert.ok(e.command !== evil && !e.args.includes(evil), JSON.stringify(e));
    assert.equal(existsSync(marker), false);
  });
});

describe("the language server process", () => {
  it("cannot start programs: none of our modules in its bundle imports child_process or the launcher", async () => {
    const r = await build({
      entryPoints: [join(REPO, "server", "lsp", "main.ts")],
      bundle: true,
      platform: "node",
      write: false,
      metafile: true,
      logLevel: "silent",
      external: ["web-tree-sitter", "tree-sitter-cuda"],
    });
    // vscode-languageserver's files.js imports child_process for helpers the server never calls.
    // A worktree may link node_modules from elsewhere, so its inputs can start with "../".
    const ours = Object.entries(r.metafile.inputs).filter(([file]) => !/(^|\/)node_modules\//.test(file));
    assert.ok(ours.length > 20);
    const imports = ours.flatMap(([file, i]) =>
      i.imports
        .filter((x) => /child_process|server\/process\/launch/.test(x.path))
        .map((x) => `${file} -> ${x.path}`),
    );
    assert.deepEqual(imports, []);
  });
});
