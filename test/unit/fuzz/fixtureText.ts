// Shared by the fuzz targets: reading fixtures and CSV records with the lines each one spans.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseCsv } from "csv-parse/sync";

export const REPO = join(__dirname, "..", "..", "..");
export const read = (p: string): string => readFileSync(join(REPO, p), "utf8");
export const quote = (f: string): string => `"${f.replace(/"/g, '""')}"`;
export const csvLine = (fields: string[]): string => fields.map(quote).join(",");

export interface CsvRecord {
  fields: string[];
  first: number;
  last: number;
}

/** Records of a well-formed CSV with the 0-based lines each spans. */
export function csvRecords(text: string): CsvRecord[] {
  const parsed = parseCsv(text, {
    relax_column_count: true,
    info: true,
    skip_empty_lines: true,
  }) as unknown as {
    record: string[];
    info: { lines: number };
  }[];
  let prev = 0;
  return parsed.map((p) => {
    const r = { fields: p.record, first: prev, last: p.info.lines - 1 };
    prev = p.info.lines;
    return r;
  });
}

export function firstRecord(line: string): string[] {
  const rows: string[][] = parseCsv(line);
  return rows[0] ?? [];
}

export const range = (a: number, b: number): number[] => Array.from({ length: b - a + 1 }, (_, k) => a + k);
