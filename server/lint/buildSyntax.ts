// Just enough of CMake's and Python's syntax to read build files as code, not as text: a word inside a
// comment, a help string or an `if()` condition is not a setting.

/** One argument of a CMake command: `(`/`)` of a nested condition come as unquoted arguments of their own. */
export interface CMakeArg {
  text: string;
  quoted: boolean;
}

export interface CMakeCommand {
  /** Lower case: CMake command names are case-insensitive. */
  name: string;
  args: CMakeArg[];
  /** 1-based line of the command's name. */
  line: number;
}

const isSpace = (c: string | undefined): boolean => c === " " || c === "\t" || c === "\n" || c === "\r";

/** The end of a bracket argument or comment `[==[ … ]==]` opening at `i` (the `[`), or -1 when it is none. */
function bracketEnd(text: string, i: number): number {
  const open = /^\[(=*)\[/.exec(text.slice(i, i + 40));
  if (!open) return -1;
  const close = text.indexOf(`]${open[1]}]`, i + open[0].length);
  return close < 0 ? text.length : close + open[1]!.length + 2;
}

const lineEnd = (text: string, i: number): number => {
  const nl = text.indexOf("\n", i);
  return nl < 0 ? text.length : nl;
};

/** The end of a CMake `#` comment at `i`: a bracket comment's close, else the end of the line. */
function commentEnd(text: string, i: number): number {
  const b = bracketEnd(text, i + 1);
  return b >= 0 ? b : lineEnd(text, i);
}

/** A quoted argument opening at `i`: its text (escapes kept but for `\"`) and where it ends. */
function quotedArg(text: string, i: number): [string, number] {
  let out = "";
  let j = i + 1;
  for (; j < text.length && text[j] !== '"'; j++) {
    if (text[j] === "\\" && j + 1 < text.length) out += text[++j] === '"' ? '"' : `\\${text[j]}`;
    else out += text[j];
  }
  return [out, j + 1];
}

/** The arguments of the command whose `(` is at `open`; returns them and the index after the `)`. */
function commandArgs(text: string, open: number): [CMakeArg[], number] {
  const args: CMakeArg[] = [];
  let depth = 0;
  let i = open + 1;
  while (i < text.length) {
    const c = text[i]!;
    if (isSpace(c)) i++;
    else if (c === "#") i = commentEnd(text, i);
    else if (c === '"') {
      const [value, end] = quotedArg(text, i);
      args.push({ text: value, quoted: true });
      i = end;
    } else if (c === "(" || c === ")") {
      if (c === ")" && depth === 0) return [args, i + 1];
      depth += c === "(" ? 1 : -1;
      args.push({ text: c, quoted: false });
      i++;
    } else if (c === "[" && bracketEnd(text, i) >= 0) {
      const end = bracketEnd(text, i);
      const inner = /^\[=*\[/.exec(text.slice(i))![0].length;
      args.push({ text: text.slice(i + inner, Math.max(i + inner, end - inner)), quoted: true });
      i = end;
    } else {
      let j = i;
      while (j < text.length && !isSpace(text[j]) && !'()#"'.includes(text[j]!)) j++;
      args.push({ text: text.slice(i, j), quoted: false });
      i = j;
    }
  }
  return [args, i];
}

/** Every command invocation in a CMake file, in order (comments and bracket arguments skipped). */
export function cmakeCommands(text: string): CMakeCommand[] {
  const out: CMakeCommand[] = [];
  let i = 0;
  let line = 1;
  let counted = 0;
  const lineAt = (at: number): number => {
    for (; counted < at; counted++) if (text[counted] === "\n") line++;
    return line;
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === "#") {
      i = commentEnd(text, i);
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i, i + 128));
    if (!word) {
      i++;
      continue;
    }
    let j = i + word[0].length;
    while (text[j] === " " || text[j] === "\t") j++;
    if (text[j] !== "(") {
      i = j;
      continue;
    }
    const [args, end] = commandArgs(text, j);
    out.push({ name: word[0].toLowerCase(), args, line: lineAt(i) });
    i = end;
  }
  return out;
}

/** A Python token that matters for reading setup.py: string literals (adjacent ones joined), names, operators. */
export interface PyToken {
  kind: "string" | "name" | "op";
  text: string;
  /** Offsets in the source: [start, end). */
  start: number;
  end: number;
  /** An f-string (or one joined with one): its {…} are values computed at run time. */
  formatted?: boolean;
}

const STRING_START = /^([rRbBuUfF]{0,2})('''|"""|'|")/;

/** A string literal whose prefix starts at `i`: its value (escapes other than quotes kept) and its end. */
function pyString(text: string, i: number, m: RegExpExecArray): [string, number] {
  const raw = /r/i.test(m[1]!);
  const quote = m[2]!;
  let j = i + m[0].length;
  let out = "";
  while (j < text.length && !text.startsWith(quote, j)) {
    // A one-quote string ends at the line's end (unterminated: the tokenizer carries on after it).
    if (quote.length === 1 && text[j] === "\n") return [out, j];
    if (text[j] === "\\" && j + 1 < text.length) {
      const next = text[j + 1]!;
      out += raw || !"'\"\\".includes(next) ? `\\${next}` : next;
      j += 2;
    } else out += text[j++];
  }
  return [out, j + quote.length];
}

/** Python source as tokens: comments dropped, adjacent string literals concatenated as Python does. */
export function pythonTokens(text: string): PyToken[] {
  const out: PyToken[] = [];
  for (let i = 0; i < text.length;) {
    const c = text[i]!;
    if (c === "#" || isSpace(c)) {
      i = c === "#" ? lineEnd(text, i) : i + 1;
      continue;
    }
    const s = STRING_START.exec(text.slice(i, i + 5));
    if (s) {
      const [value, end] = pyString(text, i, s);
      const formatted = /f/i.test(s[1]!);
      const last = out[out.length - 1];
      if (last?.kind === "string") {
        last.text += value;
        last.end = end;
        if (formatted) last.formatted = true;
      } else out.push({ kind: "string", text: value, start: i, end, ...(formatted ? { formatted } : {}) });
      i = end;
      continue;
    }
    const w = /^[A-Za-z_0-9]+/.exec(text.slice(i, i + 256));
    const end = i + (w ? w[0].length : 1);
    out.push(w ? { kind: "name", text: w[0], start: i, end } : { kind: "op", text: c, start: i, end });
    i = end;
  }
  return out;
}
