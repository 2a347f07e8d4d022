// The extension's own log (the "CUDA Kernel Dev" output channel) as VS Code writes it to disk under
// the session's user data folder, for the tests and benchmarks that check what the extension said.
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { UiSession } from "./uiSession";

const LOG_FILE = "CUDA Kernel Dev.log";

/** The log's text so far; "" until VS Code has written it. */
export function extensionLog(ui: UiSession): string {
  const logs = join(ui.server.userDataDir, "logs");
  let files: string[];
  try {
    files = readdirSync(logs, { recursive: true, encoding: "utf8" });
  } catch {
    return "";
  }
  const file = files.find((f) => basename(f) === LOG_FILE);
  return file ? readFileSync(join(logs, file), "utf8") : "";
}

/** Waits until a line of the log matches `re` (VS Code writes it out with a delay); returns the match. */
export async function waitForLog(ui: UiSession, re: RegExp, timeoutMs = 20_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = re.exec(extensionLog(ui));
    if (m) return m;
    if (Date.now() > deadline)
      throw new Error(`the extension's log has no line matching ${re} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
