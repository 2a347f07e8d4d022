// Removes what is not CSV from an ncu export before the CSV parser sees it: `==PROF==` /
// `==WARNING==` lines and the profiled program's own output (both land on stdout when ncu prints
// CSV while profiling), and anything before the header. ncu quotes every field, so outside a quoted
// field a CSV line starts with `"`; quote parity tells us whether a newline is inside a field.
import { Transform, type TransformCallback } from "node:stream";

export interface LineFilterStats {
  /** Noise lines removed (before the header and between records). */
  dropped: number;
  /** The first non-CSV line seen, for error messages. */
  firstDropped?: string;
  /** True once a line that looks like a header (starts with `"ID"`) went through. */
  sawHeader: boolean;
  /** Whether the input ended with a newline; a missing one hints at truncation. */
  endedWithNewline: boolean;
}

export class CsvLineFilter extends Transform {
  readonly stats: LineFilterStats = { dropped: 0, sawHeader: false, endedWithNewline: true };
  private pending = "";
  private inQuote = false;
  private first = true;

  constructor(private readonly isHeader: (line: string) => boolean) {
    super({ readableObjectMode: false, writableObjectMode: false, decodeStrings: false });
    this.setEncoding("utf8");
  }

  override _transform(chunk: Buffer | string, _enc: BufferEncoding, done: TransformCallback): void {
    let text = this.pending + (typeof chunk === "string" ? chunk : chunk.toString("utf8"));
    // A byte-order mark (exports saved on Windows) would hide the header's leading quote.
    if (this.first) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const lastNl = text.lastIndexOf("\n");
    if (lastNl < 0) {
      this.pending = text;
      done();
      return;
    }
    this.pending = text.slice(lastNl + 1);
    const out = this.filterLines(text.slice(0, lastNl + 1));
    done(null, out);
  }

  override _flush(done: TransformCallback): void {
    this.stats.endedWithNewline = this.pending.length === 0;
    const out = this.pending ? this.filterLines(this.pending) : "";
    done(null, out);
  }

  /** Filters a block of whole lines (each ending in "\n", except possibly the very last). */
  private filterLines(block: string): string {
    let out = "";
    let start = 0;
    while (start < block.length) {
      let end = block.indexOf("\n", start);
      end = end < 0 ? block.length : end + 1;
      const line = block.slice(start, end);
      start = end;
      if (this.inQuote || this.keep(line)) {
        out += line;
        if (countQuotes(line) % 2 === 1) this.inQuote = !this.inQuote;
      } else {
        this.stats.dropped++;
        this.stats.firstDropped ??= line.trimEnd().slice(0, 120);
      }
    }
    return out;
  }

  private keep(line: string): boolean {
    if (!this.stats.sawHeader) {
      if (this.isHeader(line)) {
        this.stats.sawHeader = true;
        return true;
      }
      return false;
    }
    return line.startsWith('"');
  }
}

function countQuotes(line: string): number {
  let n = 0;
  for (let i = line.indexOf('"'); i >= 0; i = line.indexOf('"', i + 1)) n++;
  return n;
}
