import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { configFor, CONFIG_FILE_NAME } from "../../../server/lint/config";
import { readSettings } from "../../../server/lint/settings";
import { tempDir } from "../../support/tempDir";

const known = new Set(["half-operator", "missing-launch-check"]);

test("the nearest .cuda-kernel-dev.toml applies: severities and launch-check macros", () => {
  const root = tempDir("ckd-config-");
  mkdirSync(join(root, "csrc/ops"), { recursive: true });
  writeFileSync(
    join(root, CONFIG_FILE_NAME),
    `[rules]\nhalf-operator = "off"\nmissing-launch-check = "error"\n\n[lint]\nlaunch-check-macros = ["CUDA_CHECK_LAUNCH"]\n`,
  );
  const c = configFor(join(root, "csrc/ops/k.cu"), known, root);
  assert.deepEqual(c.severity, { "half-operator": "off", "missing-launch-check": "error" });
  assert.deepEqual(c.launchCheckMacros, ["CUDA_CHECK_LAUNCH"]);
  assert.deepEqual(c.problems, []);
  assert.equal(c.file, join(root, CONFIG_FILE_NAME));
});

test("mistakes in the file become problems; the valid entries still apply", () => {
  const root = tempDir("ckd-config-");
  writeFileSync(
    join(root, CONFIG_FILE_NAME),
    `[rules]\nhalf-operator = "loud"\nno-such-rule = "off"\nmissing-launch-check = "hint"\n[lint]\nlaunch-check-macros = "X"\n`,
  );
  const c = configFor(join(root, "k.cu"), known, root);
  assert.deepEqual(c.severity, { "missing-launch-check": "hint" });
  assert.equal(c.problems.length, 3);
  assert.match(c.problems.join("\n"), /"half-operator" = "loud" is not one of/);
  assert.match(c.problems.join("\n"), /unknown rule "no-such-rule"/);
  assert.match(c.problems.join("\n"), /launch-check-macros must be an array of strings/);
});

test("a file that is not TOML is one problem, not a crash", () => {
  const root = tempDir("ckd-config-");
  writeFileSync(join(root, CONFIG_FILE_NAME), "[rules\n");
  const c = configFor(join(root, "k.cu"), known, root);
  assert.equal(c.problems.length, 1);
  assert.deepEqual(c.severity, {});
});

test("editor settings are validated field by field", () => {
  const s = readSettings(
    {
      targets: ["sm_75", "9.0"],
      lint: {
        enable: false,
        severity: { "half-operator": "error", bogus: "off" },
        launchCheckMacros: ["CHECK"],
        maxFileSizeKB: -3,
      },
    },
    known,
  );
  assert.deepEqual(s.targets, [75, 90]);
  assert.equal(s.enable, false);
  assert.deepEqual(s.severity, { "half-operator": "error" });
  assert.deepEqual(s.launchCheckMacros, ["CHECK"]);
  assert.equal(s.maxFileSizeKB, 1024);
  assert.deepEqual(s.problems, ['cudaKernelDev.lint.severity: unknown rule "bogus"']);
  assert.match(
    readSettings({ targets: ["volta"] }, known).problems[0]!,
    /cudaKernelDev.targets: unknown architecture "volta"/,
  );
  assert.equal(readSettings(undefined, known).enable, true);
});
