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

export interface LoadedProfile {
  details: NcuDetailsLaunch[];
  raw: NcuRawLaunch[] | null;
  source: SourceReport | null;
  /** The CSV files read. */
  files: Partial<Record<NcuPage, string>>;
}

export function pagePaths(report: string, dir = dirname(report)): Record<NcuPage, string> {
  const stem = basename(report).replace(/\.ncu-rep$/, "");
  return {
    details: join(dir, `${stem}.details.csv`),
    raw: join(dir, `${stem}.raw.csv`),
    source: join(dir, `${stem}.source.csv`),
  };
}

/** Exports the three pages of a report. The source page is optional: a report without source is fine. */
export async function exportReport(
  ncuPath: string,
  report: string,
  dir?: string,
  signal?: AbortSignal,
): Promise<Partial<Record<NcuPage, string>>> {
  const paths = pagePaths(report, dir ?? (await mkdtemp(join(tmpdir(), "cuda-kernel-dev-ncu-"))));
  await exportPage(ncuPath, report, "details", paths.details, signal);
  await exportPage(ncuPath, report, "raw", paths.raw, signal);
  const out: Partial<Record<NcuPage, string>> = { details: paths.details, raw: paths.raw };
  try {
    await exportPage(ncuPath, report, "source", paths.source, signal);
    out.source = paths.source;
  } catch {
    // Reports profiled without --import-source or -lineinfo have no source page to show.
  }
  return out;
}

export async function loadCsvs(files: Partial<Record<NcuPage, string>>): Promise<LoadedProfile> {
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
  let source: SourceReport | null = null;
  if (files.source && existsSync(files.source)) source = await parseNcuSource({ path: files.source });
  return { details: details.launches, raw, source, files };
}

/** Loads a .ncu-rep (via ncu) or a details CSV (with its .raw.csv/.source.csv siblings when present). */
export async function loadProfile(
  path: string,
  ncuPath: string,
  exportDir?: string,
  signal?: AbortSignal,
): Promise<LoadedProfile> {
  if (path.endsWith(".ncu-rep")) {
    if (exportDir) return loadCsvs(await exportReport(ncuPath, path, exportDir, signal));
    // No place to keep the pages: export to a temporary folder and remove it once read.
    const tmp = await mkdtemp(join(tmpdir(), "cuda-kernel-dev-ncu-"));
    try {
      return await loadCsvs(await exportReport(ncuPath, path, tmp, signal));
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }
  const files: Partial<Record<NcuPage, string>> = { details: path };
  if (path.endsWith(".details.csv")) {
    const stem = path.slice(0, -".details.csv".length);
    files.raw = `${stem}.raw.csv`;
    files.source = `${stem}.source.csv`;
  }
  return loadCsvs(files);
}
