// Reads an ncu CSV export record by record in one pass: the CSV syntax (RFC 4180: quoted fields,
// doubled quotes, newlines inside quotes, CRLF) and the removal of what is not CSV (`==PROF==` /
// `==WARNING==` lines and the profiled program's output, which land on stdout when ncu prints CSV
// while profiling, and anything before the header). ncu quotes every field, so outside a quoted
// field a CSV line starts with `"`; any other line there is noise. Hand-rolled rather than
// csv-parse: on a 2.7 MB export csv-parse alone took ~400 ms, three times the whole parse's budget
// (README, "Why these dependencies"). Damaged syntax is an error naming the line, never a guess.
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { NcuCsvError } from "./ncuCsvError";

/** Input accepted by the parsers: a file path, the text itself, or a stream of it. */
export type CsvInput = { path: string } | { text: string } | { stream: Readable };

export interface CsvReadStats {
  /** Noise lines removed (before the header and between records). */
  dropped: number;
  /** The first non-CSV line seen, for error messages. */
  firstDropped?: string;
  /** True once the header line went through. */
  sawHeader: boolean;
}

/** Called with each record's fields and the 1-based line it starts on. */
export type OnRecord = (fields: string[], line: number) => void;

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;
/** Read size for files: few chunks (little per-chunk overhead), bounded memory. */
const CHUNK_BYTES = 1 << 20;

/**
 * A copy of `s` that shares no memory with the text it was sliced from. V8 keeps a slice's whole
 * parent string alive; a kernel name kept from each 1 MB chunk would keep the whole file in memory.
 * Concatenation then slicing makes V8 flatten into a new string.
 */
export function own(s: string): string {
  return s.length < 13 ? s : (" " + s).slice(1);
}

/** One copy of each distinct string (section and metric names, kernel names, units, rule text). */
export class StringTable {
  private readonly strings = new Map<string, string>();
  get(s: string): string {
    let kept = this.strings.get(s);
    if (kept === undefined) {
      kept = own(s);
      this.strings.set(kept, kept);
    }
    return kept;
  }
}

function countNewlines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf("\n", from); i >= 0 && i < to; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/** Text read without a line feed before a file with carriage returns counts as using CR alone. */
const CR_ONLY_AFTER = 1 << 16;

/**
 * How the text's lines end: "lf" (CRLF included) once a line feed is seen; "cr" (classic Mac) when
 * there are carriage returns and no line feed in the first 64 KB or the whole (short) text;
 * undefined while that is open.
 */
function lineEndOf(text: string, atEnd: boolean): "lf" | "cr" | undefined {
  if (text.includes("\n")) return "lf";
  if (text.includes("\r") && (atEnd || text.length >= CR_ONLY_AFTER)) return "cr";
  return atEnd ? "lf" : undefined;
}

/** Pushes text in, calls `onRecord` for each complete record; `end()` after the last push. */
export class CsvRecordReader {
  readonly stats: CsvReadStats = { dropped: 0, sawHeader: false };
  private pending = "";
  /** Re-scan the pending text only once it is this long: a record longer than a chunk stays linear. */
  private waitFor = 0;
  private line = 1;
  private started = false;
  /** "cr" for a file whose lines end in a lone CR (classic Mac); see lineEndOf. */
  private lineEnd: "lf" | "cr" | undefined;

  constructor(
    private readonly isHeader: (line: string) => boolean,
    private readonly onRecord: OnRecord,
  ) {}

  push(chunk: string): void {
    if (this.lineEnd === "cr") chunk = chunk.replaceAll("\r", "\n");
    let text = this.pending.length === 0 ? chunk : this.pending + chunk;
    if (!this.started && text.length > 0) {
      this.started = true;
      // A byte-order mark (exports saved on Windows) would hide the header's leading quote.
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.lineEnd === undefined) {
      this.lineEnd = lineEndOf(text, false);
      if (this.lineEnd === "cr") text = text.replaceAll("\r", "\n");
    }
    if (text.length < this.waitFor) {
      this.pending = text;
      return;
    }
    const used = this.consume(text, false);
    this.pending = text.slice(used);
    this.waitFor = used === 0 ? text.length * 2 : 0;
  }

  end(): void {
    let text = this.pending;
    if (this.lineEnd === undefined && lineEndOf(text, true) === "cr") text = text.replaceAll("\r", "\n");
    this.consume(text, true);
    this.pending = "";
  }

  /** Reads the records and noise lines that are complete in `text`; returns where it stopped. */
  private consume(text: string, atEnd: boolean): number {
    let pos = 0;
    while (pos < text.length) {
      const nl = text.indexOf("\n", pos);
      if (nl < 0 && !atEnd) break; // a partial line: wait for the rest
      const lineEnd = nl < 0 ? text.length : nl + 1;
      const csv = this.stats.sawHeader
        ? text.charCodeAt(pos) === QUOTE
        : this.isHeader(text.slice(pos, lineEnd));
      if (!csv) {
        this.stats.dropped++;
        this.stats.firstDropped ??= text.slice(pos, lineEnd).trimEnd().slice(0, 120);
        this.line++;
        pos = lineEnd;
        continue;
      }
      this.stats.sawHeader = true;
      const fields: string[] = [];
      const end = this.record(text, pos, atEnd, fields);
      if (end < 0) break;
      this.onRecord(fields, this.line);
      this.line += end <= lineEnd ? 1 : countNewlines(text, pos, end);
      pos = end;
    }
    return pos;
  }

  /**
   * Reads the record starting at `pos` into `fields`; returns the index after its line end, or -1
   * when the text ends inside it and more is coming.
   */
  private record(text: string, pos: number, atEnd: boolean, fields: string[]): number {
    const n = text.length;
    let p = pos;
    for (;;) {
      p =
        text.charCodeAt(p) === QUOTE
          ? this.quoted(text, p, atEnd, fields)
          : this.bare(text, p, atEnd, fields);
      if (p < 0) return -1;
      const c = text.charCodeAt(p);
      if (c === COMMA) p++;
      else if (c === LF) return p + 1;
      else if (p === n) return atEnd ? n : -1;
      else if (c === CR && text.charCodeAt(p + 1) === LF) return p + 2;
      else if (c === CR && p + 1 === n) return atEnd ? n : -1;
      else
        throw this.damaged(
          `a quoted field is followed by ${JSON.stringify(text.charAt(p))} instead of a comma`,
        );
    }
  }

  /** A quoted field from its opening quote at `p`; returns the index after its closing quote. */
  private quoted(text: string, p: number, atEnd: boolean, fields: string[]): number {
    let start = p + 1;
    let escaped = "";
    for (;;) {
      const q = text.indexOf('"', start);
      if (q < 0 || (q + 1 === text.length && !atEnd)) {
        if (!atEnd) return -1;
        throw this.damaged("a quoted field never closes (the export looks truncated)");
      }
      if (text.charCodeAt(q + 1) !== QUOTE) {
        fields.push(escaped === "" ? text.slice(start, q) : escaped + text.slice(start, q));
        return q + 1;
      }
      escaped += text.slice(start, q + 1); // a doubled quote stands for one
      start = q + 2;
    }
  }

  /** An unquoted field (ncu writes none but the empty ones at the end of a row). */
  private bare(text: string, p: number, atEnd: boolean, fields: string[]): number {
    let e = p;
    for (; e < text.length; e++) {
      const c = text.charCodeAt(e);
      if (c === COMMA || c === LF) break;
      if (c === QUOTE) throw this.damaged("a quote inside an unquoted field");
    }
    if (e === text.length && !atEnd) return -1;
    const end = text.charCodeAt(e) === LF && e > p && text.charCodeAt(e - 1) === CR ? e - 1 : e;
    fields.push(text.slice(p, end));
    return end;
  }

  private damaged(why: string): NcuCsvError {
    return new NcuCsvError(`damaged CSV: ${why}`, this.line);
  }
}

/**
 * Streams the records of an export to `onRecord`, dropping noise lines and everything before the
 * first line `isHeader` accepts. Holds one chunk and one partial record at a time.
 */
export async function streamRecords(
  input: CsvInput,
  isHeader: (line: string) => boolean,
  onRecord: OnRecord,
): Promise<CsvReadStats> {
  const reader = new CsvRecordReader(isHeader, onRecord);
  if ("text" in input) {
    reader.push(input.text);
    reader.end();
    return reader.stats;
  }
  const source =
    "path" in input ? createReadStream(input.path, { highWaterMark: CHUNK_BYTES }) : input.stream;
  const decoder = new StringDecoder("utf8");
  // Leaving the loop (an error thrown by onRecord included) destroys the stream.
  for await (const chunk of source as AsyncIterable<Buffer | string>)
    reader.push(typeof chunk === "string" ? chunk : decoder.write(chunk));
  reader.push(decoder.end());
  reader.end();
  return reader.stats;
}
