// What a report parses into, kept beside it (`.cuda-kernel-dev/ncu-cache/NAME.summary.json`, in the
// folder this project already ignores) so that opening it again reads a small JSON file instead of
// the export. Keyed by the report's size and modification time (in nanoseconds) and by the parser's
// version: any change to the report, or to what the parser makes of it, reads the report again. The
// cache is a convenience only: one that cannot be read or written (a read-only folder, a damaged
// file) is passed over without a word and the report is parsed.
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Bump whenever the parser or the summary would turn the same report into something else. */
export const SUMMARY_CACHE_VERSION = 1;

interface Key {
  version: number;
  size: string;
  mtimeNs: string;
}

interface CacheFile<T> extends Key {
  value: T;
}

export function summaryCachePath(report: string): string {
  return join(dirname(report), ".cuda-kernel-dev", "ncu-cache", `${basename(report)}.summary.json`);
}

async function keyOf(report: string): Promise<Key> {
  const s = await stat(report, { bigint: true });
  return { version: SUMMARY_CACHE_VERSION, size: s.size.toString(), mtimeNs: s.mtimeNs.toString() };
}

const sameKey = (a: Key, b: Key): boolean =>
  a.version === b.version && a.size === b.size && a.mtimeNs === b.mtimeNs;

async function readCache<T>(file: string, key: Key, isValue: (v: unknown) => v is T): Promise<T | undefined> {
  try {
    const c = JSON.parse(await readFile(file, "utf8")) as Partial<CacheFile<unknown>>;
    if (typeof c === "object" && c !== null && sameKey(c as Key, key) && isValue(c.value)) return c.value;
  } catch {
    // Missing, unreadable or not JSON: parse the report.
  }
  return undefined;
}

/** JSON has no NaN or Infinity: a value holding one would not come back the same, so it is not kept. */
function faithfulJson(value: unknown): string | undefined {
  let faithful = true;
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === "number" && !Number.isFinite(v)) faithful = false;
    return v;
  });
  return faithful ? text : undefined;
}

async function writeCache(file: string, key: Key, value: unknown): Promise<void> {
  const text = faithfulJson({ ...key, value });
  if (text === undefined) return;
  // Written aside and renamed into place: a reader never sees half a file.
  const partial = `${file}.${process.pid}.partial`;
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(partial, text);
    await rename(partial, file);
  } catch {
    await rm(partial, { force: true }).catch(() => undefined);
  }
}

/**
 * `compute()`'s value for `report`, from the cache when it was made from this very file by this
 * parser version; otherwise computed, and kept when the report did not change while it was read.
 */
export async function cachedFor<T>(
  report: string,
  compute: () => Promise<T>,
  isValue: (v: unknown) => v is T,
): Promise<T> {
  const file = summaryCachePath(report);
  // A report that cannot be looked at is compute()'s to report, in its own words.
  const before = await keyOf(report).catch(() => undefined);
  if (!before) return compute();
  const hit = await readCache(file, before, isValue);
  if (hit !== undefined) return hit;
  const value = await compute();
  const after = await keyOf(report).catch(() => undefined);
  if (after && sameKey(before, after)) await writeCache(file, before, value);
  return value;
}
