// What a report parses into, kept beside it (`.cuda-kernel-dev/ncu-cache/NAME.summary.json`, in the
// folder this project already ignores) so that opening it again reads a small JSON file instead of
// the export. Keyed by the report's size and modification time (in nanoseconds) and by the parser's
// version: any change to the report, or to what the parser makes of it, reads the report again. The
// cache is a convenience only: one that cannot be read or written (a read-only folder, a damaged
// file) is passed over without a word and the report is parsed.
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Finding, KernelSummary } from "./ncuSummary";

/** Bump whenever the parser or the summary would turn the same report into something else. */
export const SUMMARY_CACHE_VERSION = 1;

interface Key {
  version: number;
  size: string;
  mtimeNs: string;
}

interface CacheFile extends Key {
  value: unknown;
}

/** How a value is stored: `decode` returns undefined for anything `encode` could not have written. */
export interface Codec<T> {
  encode(value: T): unknown;
  decode(stored: unknown): T | undefined;
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

async function readCache<T>(file: string, key: Key, codec: Codec<T>): Promise<T | undefined> {
  try {
    const c = JSON.parse(await readFile(file, "utf8")) as Partial<CacheFile> | null;
    if (typeof c === "object" && c !== null && sameKey(c as Key, key)) return codec.decode(c.value);
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
export async function cachedFor<T>(report: string, compute: () => Promise<T>, codec: Codec<T>): Promise<T> {
  const file = summaryCachePath(report);
  // A report that cannot be looked at is compute()'s to report, in its own words.
  const before = await keyOf(report).catch(() => undefined);
  if (!before) return compute();
  const hit = await readCache(file, before, codec);
  if (hit !== undefined) return hit;
  const value = await compute();
  const after = await keyOf(report).catch(() => undefined);
  if (after && sameKey(before, after)) await writeCache(file, before, codec.encode(value));
  return value;
}

// ---- the summary, stored compactly ------------------------------------------------------------
// A report's launches repeat a few kernel names and rule texts thousands of times (1,876 launches
// of a PyTorch model: 16,422 findings, 948 distinct descriptions): each string is stored once and
// referred to by its index, and each launch is an array in KernelSummary's field order. That
// summary takes 0.6 MB instead of 7.1 MB of plain JSON, and reads back in a tenth of the time.

type Dim3 = [number, number, number] | null;
type StoredFinding = [rule: number, type: number, estimatedSpeedupPct: number | null, description: number];
type StoredKernel = [
  kernel: number,
  id: number,
  blockSize: Dim3,
  gridSize: Dim3,
  durationNs: number | null,
  memoryThroughputPct: number | null,
  computeThroughputPct: number | null,
  achievedOccupancyPct: number | null,
  theoreticalOccupancyPct: number | null,
  registersPerThread: number | null,
  findings: StoredFinding[],
];

const isNumberOrNull = (v: unknown): v is number | null => v === null || typeof v === "number";
const isDim3 = (v: unknown): v is Dim3 =>
  v === null || (Array.isArray(v) && v.length === 3 && v.every((x) => typeof x === "number"));

function encodeSummary(s: { kernels: KernelSummary[] }): { strings: string[]; kernels: StoredKernel[] } {
  const strings: string[] = [];
  const index = new Map<string, number>();
  const ref = (text: string): number => {
    let i = index.get(text);
    if (i === undefined) {
      i = strings.push(text) - 1;
      index.set(text, i);
    }
    return i;
  };
  const kernels = s.kernels.map((k): StoredKernel => [
    ref(k.kernel),
    k.id,
    k.blockSize,
    k.gridSize,
    k.durationNs,
    k.memoryThroughputPct,
    k.computeThroughputPct,
    k.achievedOccupancyPct,
    k.theoreticalOccupancyPct,
    k.registersPerThread,
    k.findings.map((f): StoredFinding => [
      ref(f.rule),
      ref(f.type),
      f.estimatedSpeedupPct,
      ref(f.description),
    ]),
  ]);
  return { strings, kernels };
}

function decodeFinding(f: unknown, str: (i: unknown) => string | undefined): Finding | undefined {
  if (!Array.isArray(f) || f.length !== 4) return undefined;
  const rule = str(f[0]);
  const type = str(f[1]);
  const estimatedSpeedupPct: unknown = f[2];
  const description = str(f[3]);
  if (rule === undefined || type === undefined || description === undefined) return undefined;
  return isNumberOrNull(estimatedSpeedupPct) ? { rule, type, estimatedSpeedupPct, description } : undefined;
}

function decodeKernel(k: unknown, str: (i: unknown) => string | undefined): KernelSummary | undefined {
  if (!Array.isArray(k) || k.length !== 11) return undefined;
  const v = k as unknown[];
  const kernel = str(v[0]);
  const [id, blockSize, gridSize, stored] = [v[1], v[2], v[3], v[10]];
  if (kernel === undefined || typeof id !== "number" || !isDim3(blockSize) || !isDim3(gridSize))
    return undefined;
  for (let i = 4; i < 10; i++) if (!isNumberOrNull(v[i])) return undefined;
  if (!Array.isArray(stored)) return undefined;
  const findings: Finding[] = [];
  for (const f of stored as unknown[]) {
    const finding = decodeFinding(f, str);
    if (!finding) return undefined;
    findings.push(finding);
  }
  const n = v as (number | null)[]; // 4..9 checked above
  // The same fields in the same order as summarizeLaunch: --json prints the cached summary identically.
  return {
    kernel,
    id,
    blockSize,
    gridSize,
    durationNs: n[4]!,
    memoryThroughputPct: n[5]!,
    computeThroughputPct: n[6]!,
    achievedOccupancyPct: n[7]!,
    theoreticalOccupancyPct: n[8]!,
    registersPerThread: n[9]!,
    findings,
  };
}

function decodeSummary(stored: unknown): { kernels: KernelSummary[] } | undefined {
  const s = stored as { strings?: unknown; kernels?: unknown } | null;
  if (typeof s !== "object" || s === null || !Array.isArray(s.strings) || !Array.isArray(s.kernels))
    return undefined;
  const strings = s.strings as unknown[];
  if (!strings.every((x) => typeof x === "string")) return undefined;
  const str = (i: unknown): string | undefined =>
    Number.isInteger(i) && (i as number) >= 0 ? strings[i as number] : undefined;
  const kernels = (s.kernels as unknown[]).map((k) => decodeKernel(k, str));
  return kernels.some((k) => k === undefined) ? undefined : { kernels: kernels as KernelSummary[] };
}

export const summaryCodec: Codec<{ kernels: KernelSummary[] }> = {
  encode: encodeSummary,
  decode: decodeSummary,
};
