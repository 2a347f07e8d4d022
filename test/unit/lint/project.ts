// A throwaway project on disk for the CLI and target-resolution tests.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { resolveBuildContext } from "../../../server/lint/buildContext";
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

/** The build folder of the committed build-file fixtures (test/fixtures/build/<folder>/). */
export const BUILD_FIXTURES = join(__dirname, "..", "..", "fixtures", "build");

/** The build context of `rel` in the build fixture `folder`, looking no higher than that folder. */
export const fixtureContext = (folder: string, rel: string, gpuArch?: number) =>
  resolveBuildContext({
    file: join(BUILD_FIXTURES, folder, rel),
    stopAt: join(BUILD_FIXTURES, folder),
    env: {},
    ...(gpuArch !== undefined ? { gpuArch } : {}),
  });
