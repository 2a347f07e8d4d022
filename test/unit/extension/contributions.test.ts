// The ids the extension registers (extension/contributions.ts) against package.json: every contributed
// command and custom editor has an implementation, in the entry or in the bundle named for it, and
// that bundle exists.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  DEVICES_VIEW,
  LAZY_COMMANDS,
  LAZY_EDITORS,
  WRITE_SPEC_COMMAND,
} from "../../../extension/contributions";

const root = join(__dirname, "../../..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  contributes: {
    commands: { command: string }[];
    customEditors: { viewType: string }[];
    views: Record<string, { id: string }[]>;
  };
};

/** The commands the entry implements itself. */
const IN_ENTRY = [WRITE_SPEC_COMMAND];

test("every contributed command is implemented, in the entry or in a lazily loaded bundle", () => {
  const contributed = pkg.contributes.commands.map((c) => c.command).sort();
  assert.deepEqual(contributed, [...Object.keys(LAZY_COMMANDS), ...IN_ENTRY].sort());
});

test("every contributed custom editor is implemented in a lazily loaded bundle", () => {
  const contributed = pkg.contributes.customEditors.map((e) => e.viewType).sort();
  assert.deepEqual(contributed, Object.keys(LAZY_EDITORS).sort());
});

test("each bundle named for a command or an editor is built from extension/features/<bundle>.ts", () => {
  for (const bundle of new Set([...Object.values(LAZY_COMMANDS), ...Object.values(LAZY_EDITORS)]))
    assert.ok(existsSync(join(root, "extension/features", `${bundle}.ts`)), bundle);
});

test("the view registered at activation is the contributed one", () => {
  assert.deepEqual(
    Object.values(pkg.contributes.views).flatMap((v) => v.map((x) => x.id)),
    [DEVICES_VIEW],
  );
});
