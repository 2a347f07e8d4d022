// The extension's settings module (extension/settingValues.ts) against package.json: every setting
// has one reader with package.json's default, mistyped values fall back, and nvcc resolves as
// README promises (the Profile command used to skip $CUDA_HOME and /usr/local/cuda).
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULTS, SECTION, Settings, type SettingSource } from "../../../extension/settingValues";
import { NvccNotFoundError, resolveNvcc } from "../../../server/compiler/nvcc";
import { DEFAULT_SETTINGS } from "../../../server/lint/settings";
import { tempDir } from "../../support/tempDir";

interface Declared {
  default: unknown;
}
const pkg = JSON.parse(readFileSync(join(__dirname, "../../../package.json"), "utf8")) as {
  contributes: { configuration: { properties: Record<string, Declared> } };
};
const declared = new Map(
  Object.entries(pkg.contributes.configuration.properties).map(([k, v]) => [
    k.slice(SECTION.length + 1),
    v.default,
  ]),
);

/** A settings source holding `values` only, as VS Code's would with nothing else set. */
const source = (values: Record<string, unknown>): SettingSource => ({
  get: <T>(key: string) => values[key] as T | undefined,
});

void test("every declared setting has one reader, with package.json's default", () => {
  // The language server reads lint.* (and targets) itself: server/lint/settings.ts.
  const lint: Record<string, unknown> = {
    "lint.enable": DEFAULT_SETTINGS.enable,
    "lint.severity": DEFAULT_SETTINGS.severity,
    "lint.launchCheckMacros": DEFAULT_SETTINGS.launchCheckMacros,
    "lint.maxFileSizeKB": DEFAULT_SETTINGS.maxFileSizeKB,
  };
  const read = new Map<string, unknown>([...Object.entries(DEFAULTS), ...Object.entries(lint)]);
  assert.deepEqual([...declared.keys()].sort(), [...read.keys()].sort());
  for (const [key, value] of declared) assert.deepEqual(read.get(key), value, key);
});

void test("with nothing set, the getters give the defaults", () => {
  const s = new Settings(source({}));
  assert.deepEqual(s.nvcc, {
    path: undefined,
    includePaths: [],
    extraArgs: [],
    checkOnSave: true,
    debounceMs: 300,
    timeoutMs: 120_000,
  });
  assert.deepEqual(s.ncu, {
    path: "ncu",
    set: "full",
    clockControl: "base",
    launchCount: 1,
    skipLaunches: 0,
  });
  assert.deepEqual(s.bench, { arch: undefined, device: 0, runnerTimeoutSeconds: 20 });
  assert.equal(s.nsysPath, "nsys");
  assert.equal(s.nvidiaSmiPath, "nvidia-smi");
  assert.deepEqual(s.targets, []);
  assert.equal(s.resourcesCodeLens, true);
});

void test("set values are read; empty or mistyped ones fall back to the default", () => {
  const s = new Settings(
    source({
      "nvcc.path": "  ",
      "nvcc.includePaths": ["inc", 3],
      "nvcc.extraArgs": ["-std=c++17"],
      "nvcc.timeoutSeconds": 0,
      "nvcc.debounceMs": "fast",
      "ncu.path": "",
      "ncu.set": "everything",
      "ncu.clockControl": "none",
      "ncu.launchCount": 3,
      "nsys.path": "/opt/nsys",
      "bench.arch": "sm_90a",
      "bench.device": 1,
      "resources.codeLens": false,
    }),
  );
  assert.equal(s.nvcc.path, undefined, "a blank nvcc.path means: search for nvcc");
  assert.deepEqual(s.nvcc.includePaths, [], "not a string array");
  assert.deepEqual(s.nvcc.extraArgs, ["-std=c++17"]);
  assert.equal(s.nvcc.timeoutMs, 1000, "at least one second");
  assert.equal(s.nvcc.debounceMs, 300);
  assert.deepEqual(s.ncu, {
    path: "ncu",
    set: "full",
    clockControl: "none",
    launchCount: 3,
    skipLaunches: 0,
  });
  assert.equal(s.nsysPath, "/opt/nsys");
  assert.deepEqual(s.bench, { arch: "sm_90a", device: 1, runnerTimeoutSeconds: 20 });
  assert.equal(s.resourcesCodeLens, false);
});

void test("nvcc without a setting: PATH, then $CUDA_HOME/bin (what Profile used to miss)", async () => {
  const home = tempDir("cuda-home-");
  mkdirSync(join(home, "bin"));
  const nvcc = join(home, "bin", "nvcc");
  writeFileSync(nvcc, "#!/bin/sh\n");
  chmodSync(nvcc, 0o755);
  const env = { PATH: "/nonexistent", CUDA_HOME: home };
  assert.equal(await new Settings(source({ "nvcc.path": "" })).nvccExecutable(env), nvcc);
  // Profile's old reading, `nvcc.path || "nvcc"`, looked for "nvcc" on PATH only.
  await assert.rejects(resolveNvcc("nvcc", env), NvccNotFoundError);
  // A configured path is used as it is.
  assert.equal(await new Settings(source({ "nvcc.path": nvcc })).nvccExecutable({ PATH: "" }), nvcc);
});
