// A throwaway project on disk for the CLI and target-resolution tests.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tempDir } from "../../support/tempDir";

/** Writes `files` (relative path → contents) under a new temp folder named `prefix…`; returns its root. */
export function project(files: Record<string, string>, prefix: string): string {
  const root = tempDir(prefix);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}
