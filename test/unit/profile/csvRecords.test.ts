import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { parse } from "csv-parse/sync";
import { CsvRecordReader, streamRecords, type CsvReadStats } from "../../../server/profile/csvRecords";
import { NcuCsvError } from "../../../server/profile/ncuCsvError";
import { prng, type Rng } from "../fuzz/mutate";

const anyHeader = (line: string): boolean => line.startsWith('"');

/** Records, their line numbers and the reader's stats, the text pushed in pieces cut at `cuts`. */
function read(
  text: string,
  cuts: number[] = [],
  isHeader = anyHeader,
): { records: string[][]; lines: number[]; stats: CsvReadStats } {
  const records: string[][] = [];
  const lines: number[] = [];
  const r = new CsvRecordReader(isHeader, (rec, line) => {
    records.push(rec);
    lines.push(line);
  });
  let at = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    r.push(text.slice(at, cut));
    at = cut;
  }
  r.push(text.slice(at));
  r.end();
  return { records, lines, stats: r.stats };
}

const ALPHABET = ['"', ",", "\n", "\r\n", "a", "1", " ", "é", "\u{1F600}", "(256, 1, 1)", '""'];

function randomField(rng: Rng): string {
  let s = "";
  for (let n = rng.int(6); n > 0; n--) s += rng.pick(ALPHABET);
  return s;
}

/** A CSV of quoted records (as ncu writes them), some rows ending in empty unquoted fields. */
function randomCsv(rng: Rng): { text: string; eol: string } {
  const eol = rng.int(2) ? "\n" : "\r\n";
  const rows: string[] = [];
  for (let r = 1 + rng.int(8); r > 0; r--) {
    const fields = Array.from({ length: 1 + rng.int(5) }, () => `"${randomField(rng).replace(/"/g, '""')}"`);
    const trailing = rng.int(3) === 0 ? ",".repeat(1 + rng.int(3)) : "";
    rows.push(fields.join(",") + trailing);
  }
  return { text: rows.join(eol) + (rng.int(2) ? eol : ""), eol };
}

describe("CSV record reader", () => {
  it("reads what csv-parse reads, however the text is cut into chunks (random quoted CSV)", () => {
    for (let seed = 1; seed <= 400; seed++) {
      const rng = prng(seed);
      const { text, eol } = randomCsv(rng);
      // csv-parse guesses the line end from the first one it meets, inside quotes too: tell it.
      const expected: string[][] = parse(text, { relax_column_count: true, record_delimiter: eol });
      const cuts = Array.from({ length: rng.int(6) }, () => rng.int(text.length + 1));
      assert.deepEqual(read(text, cuts).records, expected, `seed ${seed}: ${JSON.stringify(text)}`);
    }
  });

  it("drops noise lines between records and everything before the header; numbers lines as the file does", () => {
    const text = 'hello\n==PROF== x\n"ID","Kernel Name"\n"0","k"\n==PROF== y\n"1","multi\nline"\n"2","k"';
    const { records, lines, stats } = read(text, [], (l) => l.includes('"ID"'));
    assert.deepEqual(records, [
      ["ID", "Kernel Name"],
      ["0", "k"],
      ["1", "multi\nline"],
      ["2", "k"],
    ]);
    assert.deepEqual(lines, [3, 4, 6, 8]);
    assert.equal(stats.dropped, 3);
    assert.equal(stats.firstDropped, "hello");
  });

  it("a byte-order mark and CRLF line ends change nothing", () => {
    assert.deepEqual(read('\ufeff"a","b"\r\n"c",\r\n').records, [
      ["a", "b"],
      ["c", ""],
    ]);
  });

  it("lines ending in a lone CR (a file without a line feed), however it is cut", () => {
    const text = '"a","b"\r"c","d\re"\r';
    for (const cuts of [[], [8], [7, 8], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]]) {
      const { records, lines } = read(text, cuts);
      assert.deepEqual(
        records,
        [
          ["a", "b"],
          ["c", "d\ne"],
        ],
        JSON.stringify(cuts),
      );
      assert.deepEqual(lines, [1, 2]);
    }
    // With line feeds, a CR inside quotes is kept, and one behind a closing quote is damage, as before.
    assert.deepEqual(read('"a\rb"\n"c"\n').records, [["a\rb"], ["c"]]);
    assert.throws(() => read('"a"\n"b"\r"c"\n'), /a quoted field is followed by "\\r"/);
  });

  it("damaged syntax is an error naming the record's line", () => {
    const cases: [string, RegExp][] = [
      ['"a","b"\n"c","d', /line 2: damaged CSV: a quoted field never closes/],
      ['"a","b"x\n', /line 1: damaged CSV: a quoted field is followed by "x"/],
      ['"a",b"c"\n', /line 1: damaged CSV: a quote inside an unquoted field/],
    ];
    for (const [text, message] of cases)
      assert.throws(
        () => read(text),
        (e) => e instanceof NcuCsvError && message.test(e.message),
      );
  });

  it("streams a file in pieces the same as the whole text", async () => {
    const { text } = randomCsv(prng(7));
    const got: string[][] = [];
    await streamRecords({ stream: Readable.from(text.split("")) }, anyHeader, (rec) => got.push(rec));
    assert.deepEqual(got, read(text).records);
  });

  it("a multi-byte character split across chunks survives", async () => {
    const bytes = Buffer.from('"é\u{1F600}","x"\n');
    const got: string[][] = [];
    const pieces = [...bytes].map((b) => Buffer.from([b]));
    await streamRecords({ stream: Readable.from(pieces) }, anyHeader, (rec) => got.push(rec));
    assert.deepEqual(got, [["é\u{1F600}", "x"]]);
  });
});
