// The `--page source` CSV export: per-file (and per-kernel) blocks, each a small preamble naming the
// file and function, then one row per CUDA line (or per SASS instruction correlated to a line). We
// turn it into hot lines per file: samples and a stall breakdown per line. Block layouts differ
// between views and versions, so headers are recognised by column names, never by position.
import { own, streamRecords, type CsvInput } from "./csvRecords";
import { NcuCsvError } from "./ncuCsvError";
import { parseNcuNumber } from "./units";

export interface HotLine {
  line: number;
  /** Warp-stall PC samples on this line (all samples). */
  samples: number;
  /** Samples taken while the warp was not issuing. */
  notIssuedSamples: number | null;
  instructionsExecuted: number | null;
  /** Stall reason -> samples, for the reasons the export breaks out (largest first). */
  stalls: { reason: string; samples: number }[];
  /** The source text ncu printed for the line, when present. */
  source?: string;
}

export interface SourceFile {
  path: string;
  kernels: string[];
  /** Lines with samples or executed instructions, sorted by line number. */
  lines: HotLine[];
  totalSamples: number;
}

export interface SourceReport {
  files: SourceFile[];
}

const LINE_COL = /^(#\s*)?(line|line no\.?|line number|source line)$/i;
const ALL_SAMPLES = [
  /^warp stall sampling \(all samples\)$/i,
  /^# samples$/i,
  /^sampling data \(all\)$/i,
  /^warp stall sampling \(all cycles\)$/i,
];
const NOT_ISSUED = [/^warp stall sampling \(not-issued samples\)$/i, /^sampling data \(not issued\)$/i];
const INST_EXEC = [/^instructions executed$/i, /^warp instructions executed$/i];
/**
 * "stall_..." or "... stall ... (samples)". Not one regex /^(stall[_ ]|.*stall.*\(samples\)$)/i:
 * its two .* backtrack against each other, quadratic in a hostile header cell (16,000 characters
 * of "stall": 110 ms, growing fourfold with each doubling).
 */
function isStallCol(h: string): boolean {
  if (/^stall[_ ]/i.test(h)) return true;
  const SAMPLES = "(samples)";
  return (
    h.toLowerCase().endsWith(SAMPLES) &&
    h.slice(0, -SAMPLES.length).toLowerCase().includes("stall") &&
    !/[\n\r\u2028\u2029]/.test(h)
  );
}

function findCol(header: string[], patterns: RegExp[]): number | undefined {
  for (const p of patterns) {
    const i = header.findIndex((h) => p.test(h.trim()));
    if (i >= 0) return i;
  }
  return undefined;
}

interface Block {
  lineCol: number;
  sourceCol?: number;
  samplesCol: number;
  notIssuedCol?: number;
  instCol?: number;
  stallCols: { col: number; reason: string }[];
}

function blockFor(header: string[]): Block | undefined {
  const lineCol = header.findIndex((h) => LINE_COL.test(h.trim()));
  const samplesCol = findCol(header, ALL_SAMPLES);
  if (lineCol < 0 || samplesCol === undefined) return undefined;
  const b: Block = { lineCol, samplesCol, stallCols: [] };
  const sourceCol = header.findIndex((h) => /^source$/i.test(h.trim()));
  if (sourceCol >= 0) b.sourceCol = sourceCol;
  const ni = findCol(header, NOT_ISSUED);
  if (ni !== undefined) b.notIssuedCol = ni;
  const ie = findCol(header, INST_EXEC);
  if (ie !== undefined) b.instCol = ie;
  header.forEach((h, col) => {
    if (col !== samplesCol && col !== ni && isStallCol(h.trim())) b.stallCols.push({ col, reason: h.trim() });
  });
  return b;
}

function number(text: string | undefined, what: string, line: number): number | null {
  if (text === undefined || text.trim() === "" || /^n\/a$/i.test(text.trim())) return null;
  const n = parseNcuNumber(text);
  if (n === undefined) throw new NcuCsvError(`${what} "${text}" is not a number`, line);
  return n;
}

type FileLines = { kernels: Set<string>; lines: Map<number, HotLine> };

/** Reads the blocks of a source page export row by row (see the top of this file). */
class SourceBuilder {
  readonly files = new Map<string, FileLines>();
  private currentFile: string | undefined;
  private currentKernel: string | undefined;
  private pendingLabel: "file" | "kernel" | undefined;
  private block: Block | undefined;
  sawHeader = false;
  // A report profiled without source counters (the basic set) still exports line/source columns, but
  // no samples: that is a report with no hot lines, not a damaged file.
  sawSamplelessHeader = false;
  // Every block after the first names its file again; a block without one (a lost "File Path" row)
  // would silently count its lines into the previous block's file.
  private fileSinceHeader = false;

  add(rec: string[], line: number): void {
    if (this.label(rec)) return;
    const header = blockFor(rec);
    if (header) {
      if (this.sawHeader && this.currentFile !== undefined && !this.fileSinceHeader)
        throw new NcuCsvError(
          `a block of source rows has no "File Path" row before it (the previous block was ${this.currentFile}); the export looks damaged`,
          line,
        );
      this.block = header;
      this.sawHeader = true;
      this.fileSinceHeader = false;
      return;
    }
    if (
      !this.block &&
      rec.some((c) => LINE_COL.test(c.trim())) &&
      rec.some((c) => /^address$/i.test(c.trim()))
    ) {
      this.sawSamplelessHeader = true;
      return;
    }
    if (this.block) this.addRow(this.block, rec, line);
  }

  /** A "File Path" / "Function Name" row (its value on the same row or the next); true when it was one. */
  private label(rec: string[]): boolean {
    const first = (rec[0] ?? "").trim();
    const value = rec.length > 1 ? (rec[1] ?? "").trim() : "";
    if (this.pendingLabel) {
      if (this.pendingLabel === "file") this.setFile(first);
      else this.currentKernel = own(first);
      this.pendingLabel = undefined;
      this.block = undefined;
      return true;
    }
    if (/^(file path|file name|file|source file)$/i.test(first)) {
      if (value !== "") this.setFile(value);
      else this.pendingLabel = "file";
      this.block = undefined;
      return true;
    }
    if (/^(function name|kernel name|function)$/i.test(first) && rec.length <= 2) {
      if (value !== "") this.currentKernel = own(value);
      else this.pendingLabel = "kernel";
      return true;
    }
    return false;
  }

  private setFile(path: string): void {
    this.currentFile = own(path);
    this.fileSinceHeader = true;
  }

  private addRow(block: Block, rec: string[], line: number): void {
    const lineNo = number(rec[block.lineCol], "line number", line);
    if (lineNo === null) return; // SASS rows without a CUDA line
    if (rec.length <= block.samplesCol)
      throw new NcuCsvError(`row has ${rec.length} fields; the export looks truncated`, line);
    const path = this.currentFile ?? "(unknown file)";
    let f = this.files.get(path);
    if (!f) {
      f = { kernels: new Set(), lines: new Map() };
      this.files.set(path, f);
    }
    if (this.currentKernel) f.kernels.add(this.currentKernel);
    const samples = number(rec[block.samplesCol], "samples", line) ?? 0;
    const notIssued =
      block.notIssuedCol === undefined ? null : number(rec[block.notIssuedCol], "samples", line);
    const inst =
      block.instCol === undefined ? null : number(rec[block.instCol], "instructions executed", line);
    // The same line can appear once per SASS instruction (sass,cuda view) or per kernel: add up.
    let h = f.lines.get(lineNo);
    if (!h) {
      h = { line: lineNo, samples: 0, notIssuedSamples: null, instructionsExecuted: null, stalls: [] };
      f.lines.set(lineNo, h);
    }
    h.samples += samples;
    if (notIssued !== null) h.notIssuedSamples = (h.notIssuedSamples ?? 0) + notIssued;
    if (inst !== null) h.instructionsExecuted = (h.instructionsExecuted ?? 0) + inst;
    for (const { col, reason } of block.stallCols) {
      const v = number(rec[col], reason, line);
      if (!v) continue;
      const s = h.stalls.find((x) => x.reason === reason);
      if (s) s.samples += v;
      else h.stalls.push({ reason, samples: v });
    }
    const src = block.sourceCol === undefined ? undefined : rec[block.sourceCol];
    if (src !== undefined && h.source === undefined) h.source = own(src);
  }
}

function sourceFile(path: string, f: FileLines): SourceFile {
  const lines = [...f.lines.values()]
    .filter((l) => l.samples > 0 || (l.instructionsExecuted ?? 0) > 0)
    .sort((a, b) => a.line - b.line);
  for (const l of lines) l.stalls.sort((a, b) => b.samples - a.samples);
  return { path, kernels: [...f.kernels], lines, totalSamples: lines.reduce((s, l) => s + l.samples, 0) };
}

export async function parseNcuSource(input: CsvInput): Promise<SourceReport> {
  const b = new SourceBuilder();
  await streamRecords(
    input,
    (line) => line.startsWith('"'),
    (rec, line) => b.add(rec, line),
  );
  if (!b.sawHeader && b.sawSamplelessHeader) return { files: [] };
  if (!b.sawHeader)
    throw new NcuCsvError(
      "not an ncu source page export: no header with a line column and warp stall samples",
    );
  return { files: [...b.files].map(([path, f]) => sourceFile(path, f)) };
}

/** The hottest lines of a file, by samples. */
export function hottest(file: SourceFile, n: number): HotLine[] {
  return [...file.lines].sort((a, b) => b.samples - a.samples).slice(0, n);
}
