// Temporary folders for tests that are removed when the test process exits, whatever the test did
// (passed, failed, threw before its own cleanup): the unit suite leaves nothing in the temp folder.
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];

/** Every folder under `dir` made writable and searchable again (a test may have locked one). */
function unlock(dir: string): void {
  try {
    chmodSync(dir, 0o755);
    for (const e of readdirSync(dir)) {
      const p = join(dir, e);
      if (statSync(p).isDirectory()) unlock(p);
    }
  } catch {
    // What cannot be unlocked is left to rmSync to report nothing about.
  }
}

function removeAll(): void {
  for (const dir of made.splice(0)) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      unlock(dir);
      rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
    }
  }
}

/** A new folder `<tmp>/<prefix>XXXXXX`, removed when this process exits. */
export function tempDir(prefix: string): string {
  if (made.length === 0) process.once("exit", removeAll);
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
