// The benchmark history: one JSON line per run in `.cuda-kernel-dev/bench-history.jsonl` of the
// workspace. Each run is appended with a single write on an O_APPEND descriptor, so runs from several
// processes interleave whole lines and never tear each other. A file that is damaged anyway (a
// crash mid-write, a bad merge) is moved aside to `bench-history.corrupt-<time>.jsonl`, its good
// lines are carried into a fresh file, and nothing is silently dropped.
import { open, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type HistoryEntry, isHistoryEntry } from "./results";

export const HISTORY_DIR = ".cuda-kernel-dev";
export const HISTORY_FILE = "bench-history.jsonl";

export function historyPath(workspace: string): string {
  return join(workspace, HISTORY_DIR, HISTORY_FILE);
}

/** One O_APPEND write of the whole line: concurrent appenders interleave lines, not bytes. */
async function appendLines(path: string, text: string): Promise<void> {
  const fh = await open(path, "a");
  try {
    const buf = Buffer.from(text);
    const { bytesWritten } = await fh.write(buf, 0, buf.length);
    if (bytesWritten !== buf.length)
      throw new Error(`short write to ${path} (${bytesWritten} of ${buf.length} bytes)`);
  } finally {
    await fh.close();
  }
}

async function endsWithNewline(path: string): Promise<boolean> {
  const size = (await stat(path)).size;
  if (size === 0) return true;
  const fh = await open(path, "r");
  try {
    const b = Buffer.alloc(1);
    await fh.read(b, 0, 1, size - 1);
    return b[0] === 0x0a;
  } finally {
    await fh.close();
  }
}

interface Parsed {
  entries: HistoryEntry[];
  bad: number;
}

function parse(text: string): Parsed {
  const entries: HistoryEntry[] = [];
  let bad = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const v: unknown = JSON.parse(line);
      if (isHistoryEntry(v)) entries.push(v);
      else bad++;
    } catch {
      bad++;
    }
  }
  return { entries, bad };
}

/** Held only while a damaged file is being set aside; stale after 10 s (a crashed holder). */
async function withLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  const lock = `${path}.lock`;
  for (let attempt = 0; ; attempt++) {
    try {
      await writeFile(lock, String(process.pid), { flag: "wx" });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      try {
        if (Date.now() - (await stat(lock)).mtimeMs > 10_000) await rm(lock, { force: true });
      } catch {
        // Gone between the two calls: try again.
      }
      if (attempt > 200) throw new Error(`${lock} is held by another process`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { force: true });
  }
}

/** Moves a damaged history aside and starts a fresh one with its readable lines. Returns the aside path. */
async function setAside(path: string): Promise<string | undefined> {
  return withLock(path, async () => {
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch {
      return undefined;
    }
    const { entries, bad } = parse(text);
    // Another process may have repaired it while this one waited for the lock.
    if (bad === 0 && (text === "" || text.endsWith("\n"))) return undefined;
    const aside = join(
      dirname(path),
      `bench-history.corrupt-${new Date().toISOString().replace(/[:.]/g, "-")}-${process.pid}.jsonl`,
    );
    await rename(path, aside);
    if (entries.length > 0) await appendLines(path, entries.map((e) => JSON.stringify(e) + "\n").join(""));
    return aside;
  });
}

export interface AppendResult {
  path: string;
  /** Set when a damaged file was found and moved here first. */
  setAside?: string;
}

/** Appends one run. Creates the folder and file as needed. */
export async function appendHistory(workspace: string, entry: HistoryEntry): Promise<AppendResult> {
  const path = historyPath(workspace);
  await mkdir(dirname(path), { recursive: true });
  let aside: string | undefined;
  // A torn last line (a writer died mid-line) would glue onto ours: repair first.
  try {
    if (!(await endsWithNewline(path))) aside = await setAside(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  await appendLines(path, JSON.stringify(entry) + "\n");
  return { path, ...(aside ? { setAside: aside } : {}) };
}

export interface ReadResult {
  entries: HistoryEntry[];
  setAside?: string;
}

/** Every run, oldest first; a damaged file is set aside (and its good lines kept). */
export async function readHistory(workspace: string): Promise<ReadResult> {
  const path = historyPath(workspace);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { entries: [] };
    throw e;
  }
  const parsed = parse(text);
  if (parsed.bad === 0) return { entries: parsed.entries };
  let aside: string | undefined;
  try {
    aside = await setAside(path);
  } catch {
    // Cannot repair it here (a read-only workspace): show the good lines, leave the file as it is.
  }
  return { entries: parsed.entries, ...(aside ? { setAside: aside } : {}) };
}

/** The runs of one kernel in one file, oldest first. */
export function historyOf(entries: HistoryEntry[], file: string, kernel: string): HistoryEntry[] {
  return entries.filter((e) => e.file === file && e.kernel === kernel);
}
