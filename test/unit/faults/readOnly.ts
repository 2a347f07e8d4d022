// Makes a folder read-only for a test, for real, even as root (where chmod alone changes nothing):
// chmod, then `chattr +i` when running as root. Returns undefined when neither holds here.
import { chmodSync, readdirSync, statSync, writeFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { runProcess } from "../../../server/process/launch";

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

/** Read-only `dir` (and everything in it); resolves to an undo function, or undefined if impossible here. */
export async function makeReadOnly(dir: string): Promise<(() => Promise<void>) | undefined> {
  const paths = walk(dir);
  for (const p of paths) chmodSync(p, statSync(p).isDirectory() ? 0o555 : 0o444);
  let immutable = false;
  if (writable(dir) && process.getuid?.() === 0) {
    const r = await runProcess("chattr", ["+i", ...paths], { tool: "chattr" }).catch(() => undefined);
    immutable = r?.exitCode === 0;
  }
  const undo = async (): Promise<void> => {
    if (immutable) await runProcess("chattr", ["-i", ...paths], { tool: "chattr" });
    for (const p of paths) chmodSync(p, statSync(p).isDirectory() ? 0o755 : 0o644);
  };
  if (writable(dir)) {
    await undo();
    return undefined;
  }
  return undo;
}
