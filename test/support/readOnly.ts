// Makes a folder read-only for a test, for real, even as root (where chmod alone changes nothing):
// chmod, then `chattr +i` when running as root (the documented machine and CI run as root on ext4,
// where it holds). Throws, saying why, where neither holds: such a test fails rather than skips.
import { execFileSync } from "node:child_process";
import { chmodSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

function writable(dir: string): boolean {
  const probe = join(dir, ".write-probe");
  try {
    writeFileSync(probe, "x");
    rmSync(probe);
    return true;
  } catch {
    return false;
  }
}

function walk(p: string): string[] {
  return statSync(p).isDirectory() ? [...readdirSync(p).flatMap((e) => walk(join(p, e))), p] : [p];
}

/** chattr run directly (test set-up, not a tool the product launches); its error, or undefined. */
function chattr(flag: "+i" | "-i", paths: string[]): string | undefined {
  try {
    execFileSync("chattr", [flag, ...paths], { stdio: ["ignore", "ignore", "pipe"] });
    return undefined;
  } catch (err) {
    return String((err as { stderr?: Buffer }).stderr ?? err).trim();
  }
}

/** Read-only `dir` (and everything in it); resolves to an undo function. Throws where that is impossible. */
export function makeReadOnly(dir: string): Promise<() => Promise<void>> {
  const paths = walk(dir);
  for (const p of paths) chmodSync(p, statSync(p).isDirectory() ? 0o555 : 0o444);
  let immutable = false;
  let why = "chmod 555 left it writable";
  if (writable(dir) && process.getuid?.() === 0) {
    const failed = chattr("+i", paths);
    immutable = failed === undefined;
    if (failed) why += `, and as root chattr +i failed: ${failed}`;
  }
  const undo = (): Promise<void> => {
    if (immutable) chattr("-i", paths);
    for (const p of paths) chmodSync(p, statSync(p).isDirectory() ? 0o755 : 0o644);
    return Promise.resolve();
  };
  if (writable(dir)) {
    void undo();
    throw new Error(`cannot make ${dir} read-only here: ${why}`);
  }
  return Promise.resolve(undo);
}
