// Mutations of real tool outputs for the parser fuzz tests. Each mutation reports which lines of
// the ORIGINAL text it touched, so the oracle can demand that every value read from an untouched
// line comes out exactly as in the unmutated parse.

/** A small deterministic PRNG (mulberry32) so a failing case replays from its seed. */
export function prng(seed: number): Rng {
  let s = seed >>> 0;
  const next = (): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    float: next,
    int: (n) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!,
  };
}

export interface Rng {
  float(): number;
  /** 0 <= result < n */
  int(n: number): number;
  pick<T>(xs: readonly T[]): T;
}

export interface Mutated {
  text: string;
  /** Short description, printed with a failing seed. */
  what: string;
  /** Original line indexes whose content may legitimately change values; "all" when nothing is comparable. */
  touched: Set<number> | "all";
}

// Characters that matter to the formats here (CSV quotes and separators, XML markup, digits,
// units, line ends, NUL, a multi-byte letter) plus random code points.
const SPECIAL = [
  '"',
  ",",
  "\n",
  "\r",
  "\0",
  "<",
  ">",
  "/",
  "&",
  "'",
  "(",
  ")",
  ".",
  "-",
  "e",
  "%",
  " ",
  "\t",
  "é",
  "\uFFFD",
];

function randomChar(rng: Rng): string {
  const r = rng.int(4);
  if (r === 0) return rng.pick(SPECIAL);
  if (r === 1) return String(rng.int(10));
  if (r === 2) return String.fromCharCode(32 + rng.int(95));
  return String.fromCharCode(rng.int(0x3000));
}

function randomString(rng: Rng, max: number): string {
  let s = "";
  for (let n = 1 + rng.int(max); n > 0; n--) s += randomChar(rng);
  return s;
}

/** A number as some tool might print it, or as a damaged one would look. */
export function randomNumberText(rng: Rng): { text: string; value: number | undefined } {
  const n = rng.int(1e6) * (rng.int(2) ? 1 : 1000);
  switch (rng.int(12)) {
    case 0:
      return { text: String(n), value: n };
    case 1:
      return { text: n.toLocaleString("en-US"), value: n };
    case 2: {
      const v = rng.int(100000) / 100;
      return { text: v.toFixed(2), value: Number(v.toFixed(2)) };
    }
    case 3:
      return { text: `${(n / 1000).toLocaleString("en-US")}`, value: n / 1000 };
    case 4: {
      const [m, e] = [rng.int(9) + 1, rng.int(9)];
      return { text: `${m}e+0${e}`, value: m * 10 ** e };
    }
    case 5:
      return { text: `-${n}`, value: -n };
    case 6:
      return { text: "n/a", value: undefined };
    default:
      // Damaged numbers: a decimal comma, misplaced separators, two points, hex, trailing text, empty.
      return {
        text: rng.pick([
          "1,23",
          "12,34.5",
          "1.2.3",
          "0x10",
          "12abc",
          "",
          "1 234",
          "٣",
          "1e",
          ".",
          "--1",
          "+-2",
          "NaN",
          "Infinity",
          "1,2345",
        ]),
        value: undefined,
      };
  }
}

const NUMBER = /-?\d[\d,]*(\.\d+)?/g;

/** Generic line-level mutations. `lines` is the text split on "\n" (the last element may be ""). */
export function mutateLines(lines: readonly string[], rng: Rng): Mutated {
  const out = [...lines];
  const n = lines.length;
  const i = rng.int(n);
  const touched = new Set<number>([i]);
  const line = lines[i]!;
  const pos = rng.int(line.length + 1);
  switch (rng.int(11)) {
    case 0: {
      out[i] = line.slice(0, pos) + randomChar(rng) + line.slice(pos + 1);
      return { text: out.join("\n"), what: `replace char ${pos} of line ${i}`, touched };
    }
    case 1: {
      out[i] = line.slice(0, pos) + randomString(rng, 8) + line.slice(pos);
      return { text: out.join("\n"), what: `insert at ${pos} of line ${i}`, touched };
    }
    case 2: {
      const len = 1 + rng.int(20);
      out[i] = line.slice(0, pos) + line.slice(pos + len);
      return { text: out.join("\n"), what: `delete ${len} chars at ${pos} of line ${i}`, touched };
    }
    case 3: {
      // Truncation anywhere: everything from this line on is touched.
      const all = new Set<number>();
      for (let k = i; k < n; k++) all.add(k);
      return {
        text: [...lines.slice(0, i), line.slice(0, pos)].join("\n"),
        what: `truncate at line ${i} char ${pos}`,
        touched: all,
      };
    }
    case 4:
      out.splice(i, 1);
      return { text: out.join("\n"), what: `delete line ${i}`, touched };
    case 5:
      out.splice(i, 0, line);
      return { text: out.join("\n"), what: `duplicate line ${i}`, touched };
    case 6: {
      const j = rng.int(n);
      out[i] = lines[j]!;
      out[j] = line;
      touched.add(j);
      return { text: out.join("\n"), what: `swap lines ${i} and ${j}`, touched };
    }
    case 7: {
      // Join with the next line (a lost newline).
      if (i + 1 < n) {
        out.splice(i, 2, line + lines[i + 1]!);
        touched.add(i + 1);
      }
      return { text: out.join("\n"), what: `join lines ${i} and ${i + 1}`, touched };
    }
    case 8: {
      // Change one number in the line to another number (or a damaged one).
      const matches = [...line.matchAll(NUMBER)];
      if (matches.length === 0) return { text: out.join("\n"), what: "no number to change", touched };
      const m = rng.pick(matches);
      out[i] = line.slice(0, m.index) + randomNumberText(rng).text + line.slice(m.index + m[0].length);
      return { text: out.join("\n"), what: `change number "${m[0]}" on line ${i}`, touched };
    }
    case 9: {
      // CRLF line ends or a BOM: values must not change at all.
      const crlf = rng.int(2) === 0;
      return {
        text: crlf ? lines.join("\r\n") : "\uFEFF" + lines.join("\n"),
        what: crlf ? "CRLF line ends" : "UTF-8 BOM",
        touched: new Set(crlf ? [] : [0]),
      };
    }
    default: {
      // Random bytes: anything may happen except a crash.
      return { text: randomString(rng, 400), what: "random bytes", touched: "all" };
    }
  }
}
