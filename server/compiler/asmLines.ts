// Which lines of PTX (`nvcc -ptx -lineinfo`) or SASS (`nvdisasm -g`) came from which source line, and
// where each kernel's code is. PTX says it with `.loc FILE LINE COL` directives (`.file N "path"`
// names the files; code inlined from a header carries `inlined_at FILE LINE COL`); nvdisasm -g with
// `//## File "path", line N` comments. Lines here are 0-based for the assembly, 1-based for source.

export interface SourceLine {
  file: string;
  line: number;
}

export interface AsmLineMap {
  /** Each assembly line holding an instruction, with the source lines it belongs to (inlined code belongs to the call site too). */
  lines: { asmLine: number; sources: SourceLine[] }[];
  /** Kernel symbol -> its first and last assembly line. */
  functions: Map<string, { start: number; end: number }>;
}

const PTX_FILE = /^\s*\.file\s+(\d+)\s+"([^"]*)"/;
const PTX_LOC =
  /^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+(?:,\s*function_name\s+\S+,\s*inlined_at\s+(\d+)\s+(\d+)\s+\d+)?/;
const PTX_ENTRY = /^\s*(?:\.visible\s+|\.weak\s+|\.extern\s+)?\.(?:entry|func)\s+(?:\([^)]*\)\s*)?([\w$]+)/;
const PTX_INSTRUCTION = /^\s*(?:\{\s*)?(?:@!?%\w+\s+)?[a-z][\w.:]*(?:\s|;)/;

/** The PTX line map. `.file` directives come at the end of the PTX, so files resolve after a first pass. */
export function ptxLineMap(ptx: string): AsmLineMap {
  const text = ptx.split(/\r?\n/);
  const files = new Map<number, string>();
  for (const l of text) {
    const f = PTX_FILE.exec(l);
    if (f) files.set(Number(f[1]), f[2]!);
  }
  const lines: AsmLineMap["lines"] = [];
  const functions = new Map<string, { start: number; end: number }>();
  let current: SourceLine[] = [];
  let outer: SourceLine | undefined; // the last location not inlined from elsewhere: the call site
  let fn: { name: string; start: number; depth: number; opened: boolean } | undefined;
  text.forEach((l, i) => {
    const entry = PTX_ENTRY.exec(l);
    if (entry) {
      fn = { name: entry[1]!, start: i, depth: 0, opened: false };
      current = [];
      outer = undefined;
    }
    if (fn) {
      const code = l.replace(/\/\/.*$/, "");
      for (const c of code) {
        if (c === "{") {
          fn.depth++;
          fn.opened = true;
        } else if (c === "}") fn.depth--;
      }
      if (fn.opened && fn.depth === 0) {
        functions.set(fn.name, { start: fn.start, end: i });
        fn = undefined;
        return;
      }
    }
    const loc = PTX_LOC.exec(l);
    if (loc) {
      const here: SourceLine = { file: files.get(Number(loc[1])) ?? `#${loc[1]}`, line: Number(loc[2]) };
      if (loc[3] === undefined) {
        outer = here;
        current = [here];
      } else
        current = outer && (outer.file !== here.file || outer.line !== here.line) ? [here, outer] : [here];
      return;
    }
    if (
      current.length &&
      !/^\s*(?:\/\/|\.|$)/.test(l) &&
      !/^\s*[$\w]+:\s*$/.test(l) &&
      PTX_INSTRUCTION.test(l)
    )
      lines.push({ asmLine: i, sources: current });
  });
  return { lines, functions };
}

const SASS_FILE_LINE =
  /^\s*\/\/##\s*File\s+"([^"]*)",\s*line\s+(\d+)(?:\s+inlined at\s+"([^"]*)",\s*line\s+(\d+))?/;
const SASS_INSTRUCTION = /^\s*\/\*[0-9a-f]{4,}\*\/\s+\S/;
const SASS_FUNCTION_NVDISASM = /^\s*\.text\.([\w$]+):\s*$/;
const SASS_FUNCTION_CUOBJDUMP = /^\s*Function\s*:\s*(\S+)/;

/** The SASS line map, from `nvdisasm -g -c` (line info) or `cuobjdump -sass` (functions only). */
export function sassLineMap(sass: string): AsmLineMap {
  const text = sass.split(/\r?\n/);
  const lines: AsmLineMap["lines"] = [];
  const functions = new Map<string, { start: number; end: number }>();
  let current: SourceLine[] = [];
  let fn: { name: string; start: number; last: number } | undefined;
  const close = (): void => {
    if (fn) functions.set(fn.name, { start: fn.start, end: fn.last });
    fn = undefined;
  };
  text.forEach((l, i) => {
    const f = SASS_FUNCTION_NVDISASM.exec(l) ?? SASS_FUNCTION_CUOBJDUMP.exec(l);
    if (f) {
      close();
      fn = { name: f[1]!, start: i, last: i };
      current = [];
      return;
    }
    if (/^\s*\.section\b/.test(l) || /^\s*\.{2,}\s*$/.test(l)) close();
    const fl = SASS_FILE_LINE.exec(l);
    if (fl) {
      current = [{ file: fl[1]!, line: Number(fl[2]) }];
      if (fl[3] !== undefined) current.push({ file: fl[3], line: Number(fl[4]) });
      return;
    }
    if (SASS_INSTRUCTION.test(l)) {
      if (fn) fn.last = i;
      if (current.length) lines.push({ asmLine: i, sources: current });
    }
  });
  close();
  return { lines, functions };
}

/** Assembly lines that came from `line` of `file` (matched by path; relative paths by their ending). */
export function asmLinesFor(map: AsmLineMap, file: string, line: number): number[] {
  const norm = (p: string): string => p.replace(/\\/g, "/").replace(/\/\.\//g, "/");
  const want = norm(file);
  const same = (p: string): boolean => {
    const got = norm(p);
    return got === want || want.endsWith(`/${got}`) || got.endsWith(`/${want}`);
  };
  return map.lines
    .filter((l) => l.sources.some((s) => s.line === line && same(s.file)))
    .map((l) => l.asmLine);
}

/** Collapses sorted line numbers into [start, end] runs, for highlighting. */
export function toRuns(lines: number[]): [number, number][] {
  const runs: [number, number][] = [];
  for (const l of lines) {
    const last = runs.at(-1);
    if (last && l === last[1] + 1) last[1] = l;
    else runs.push([l, l]);
  }
  return runs;
}
