// Opens a profile from what the user has: an ncu CSV export (needs nothing) or a .ncu-rep (needs
// the ncu CLI to export its pages). Exports of a report are kept beside it as NAME.details.csv,
// NAME.raw.csv and NAME.source.csv, and a details CSV named that way picks up its raw sibling.
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { exportPage, type NcuPage } from "./ncuCli";
import { parseNcuCsv, NcuCsvError, type NcuDetailsLaunch, type NcuRawLaunch } from "./ncuCsv";
import { parseNcuSource, type SourceReport } from "./ncuSource";
import { summarizeNcuCsv, type KernelSummary } from "./ncuSummary";
import { cachedFor, summaryCodec } from "./summaryCache";

export interface LoadedProfile {
  details: NcuDetailsLaunch[];
  raw: NcuRawLaunch[] | null;
  /** The source page as read at load; null when there is none, or when it was left to loadSource(). */
  source: SourceReport | null;
  /**
   * The source page (hot lines), read on the first call and kept. With `{ source: "lazy" }` it is
   * only read (and, for a .ncu-rep, exported) then; otherwise this returns what `source` holds.
   */
  loadSource(): Promise<SourceReport | null>;
  /** The CSV files read. */
  files: Partial<Record<NcuPage, string>>;
}

export interface LoadOptions {
  /** "lazy": leave the source page unread until loadSource() asks for it. Default "eager". */
  source?: "eager" | "lazy";
}

/** A function that runs `fn` on its first call and hands every call that one promise. */
function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= fn());
}

async function inTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const tmp = await mkdtemp(join(tmpdir(), "cuda-kernel-dev-ncu-"));
  try {
    return await fn(tmp);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

export function pagePaths(report: string, dir = dirname(report)): Record<NcuPage, string> {
  const stem = basename(report).replace(/\.ncu-rep$/, "");
  return {
    details: join(dir, `${stem}.details.csv`),
    raw: join(dir, `${stem}.raw.csv`),
    source: join(dir, `${stem}.source.csv`),
  };
}

const ALL_PAGES: readonly NcuPage[] = ["details", "raw", "source"];

/**
 * Exports pages of a report (all three unless `pages` says which). The source page is optional: a
 * report without source is fine.
 */
export async function exportReport(
  ncuPath: string,
  report: string,
  dir?: string,
  signal?: AbortSignal,
  pages: readonly NcuPage[] = ALL_PAGES,
): Promise<Partial<Record<NcuPage, string>>> {
  const paths = pagePaths(report, dir ?? (await mkdtemp(join(tmpdir(), "cuda-kernel-dev-ncu-"))));
  const out: Partial<Record<NcuPage, string>> = {};
  for (const page of pages) {
    try {
      await exportPage(ncuPath, report, page, paths[page], signal);
      out[page] = paths[page];
    } catch (e) {
      // Reports profiled without --import-source or -lineinfo have no source page to show.
      if (page !== "source") throw e;
    }
  }
  return out;
}

export async function loadCsvs(
  files: Partial<Record<NcuPage, string>>,
  options: LoadOptions = {},
): Promise<LoadedProfile> {
  if (!files.details) throw new NcuCsvError("no details page to load");
  const details = await parseNcuCsv({ path: files.details });
  if (details.page !== "details")
    throw new NcuCsvError(
      `${files.details} is a ${details.page} page export; open the details page (ncu --page details)`,
    );
  let raw: NcuRawLaunch[] | null = null;
  if (files.raw && existsSync(files.raw)) {
    const r = await parseNcuCsv({ path: files.raw });
    if (r.page === "raw") raw = r.launches;
  }
  const readSource = (): Promise<SourceReport | null> =>
    files.source && existsSync(files.source) ? parseNcuSource({ path: files.source }) : Promise.resolve(null);
  if (options.source === "lazy")
    return { details: details.launches, raw, source: null, loadSource: once(readSource), files };
  const source = await readSource();
  return { details: details.launches, raw, source, loadSource: () => Promise.resolve(source), files };
}

/** A .ncu-rep's pages, exported into `exportDir` (kept) or a temporary folder (removed once read). */
async function loadReport(
  report: string,
  ncuPath: string,
  exportDir: string | undefined,
  signal: AbortSignal | undefined,
  options: LoadOptions,
): Promise<LoadedProfile> {
  const inDir = <T>(fn: (dir: string) => Promise<T>): Promise<T> =>
    exportDir ? fn(exportDir) : inTempDir(fn);
  if (options.source !== "lazy")
    return inDir(async (dir) => loadCsvs(await exportReport(ncuPath, report, dir, signal), options));
  const loaded = await inDir(async (dir) =>
    loadCsvs(await exportReport(ncuPath, report, dir, signal, ["details", "raw"]), options),
  );
  const loadSource = once(() =>
    inDir(async (dir) => {
      const files = await exportReport(ncuPath, report, dir, signal, ["source"]);
      return files.source ? parseNcuSource({ path: files.source }) : null;
    }),
  );
  return { ...loaded, loadSource };
}

/**
 * Loads a .ncu-rep (via ncu) or a details CSV (with its .raw.csv/.source.csv siblings when present).
 * `options.source: "lazy"` leaves the source page to `loadSource()`.
 */
export async function loadProfile(
  path: string,
  ncuPath: string,
  exportDir?: string,
  signal?: AbortSignal,
  options: LoadOptions = {},
): Promise<LoadedProfile> {
  if (path.endsWith(".ncu-rep")) return loadReport(path, ncuPath, exportDir, signal, options);
  const files: Partial<Record<NcuPage, string>> = { details: path };
  if (path.endsWith(".details.csv")) {
    const stem = path.slice(0, -".details.csv".length);
    files.raw = `${stem}.raw.csv`;
    files.source = `${stem}.source.csv`;
  }
  return loadCsvs(files, options);
}

/** Summarises the details page alone, streamed: a raw page stops at its header. */
function summarizeDetailsCsv(file: string): Promise<{ kernels: KernelSummary[] }> {
  return summarizeNcuCsv({ path: file }, (page) => {
    if (page !== "details")
      throw new NcuCsvError(`${file} is a ${page} page export; open the details page (ncu --page details)`);
  });
}

/**
 * The per-launch summary of a .ncu-rep or a details CSV: only the details page is exported and
 * read, and the result is kept beside the report (summaryCache.ts) for the next time, unless
 * `cache` is false.
 */
export function loadSummary(
  path: string,
  ncuPath: string,
  signal?: AbortSignal,
  { cache = true }: { cache?: boolean } = {},
): Promise<{ kernels: KernelSummary[] }> {
  const compute = (): Promise<{ kernels: KernelSummary[] }> =>
    path.endsWith(".ncu-rep")
      ? inTempDir(async (dir) => {
          const file = pagePaths(path, dir).details;
          await exportPage(ncuPath, path, "details", file, signal);
          return summarizeDetailsCsv(file);
        })
      : summarizeDetailsCsv(path);
  return cache ? cachedFor(path, compute, summaryCodec) : compute();
}
