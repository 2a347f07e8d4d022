// The project's own headers, as far as the rules need them: `#include "x.h"` resolved against the
// including file's folder and then its ancestors, then the build's include directories; `#include <x.h>`
// against the build's include directories (as the compiler searches -I folders for both), then, like a
// quoted one, against the includer's folder and its ancestors: a header of that name the project holds
// there is the one an -I the build readers cannot see reaches (a JIT's include paths, a parent
// CMakeLists.txt's). Never above the root (the workspace or lint root; the file's own folder when none is
// given). Read as text for macro definitions, type aliases, constructors, further includes and function
// bodies. System and toolkit headers are not in the project, and headers outside the root are not read: a
// macro or alias defined there is unknown to the rules. Each header is read once per path and modification
// time.
import { readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { codeOnly } from "../source/codeText";
import type { FileIndex } from "../source/fileIndex";
import { directiveLines, type DirectiveLine } from "./directiveLines";
import { functionBodies } from "../source/functionBodies";
import { aliasDefs } from "../types/aliasScopes";
import { alignedTypeNames } from "../types/vectorTypes";
import { constructors, type Constructor } from "../types/constructors";

/** What a file defines that the rules resolve across files. */
export interface SourceFacts {
  /** `#define NAME body` (continuation lines joined): the body's text, comments blanked. */
  defines: Map<string, string>;
  /**
   * `typedef T NAME;` and `using NAME = T;` of plain type names at file or namespace level: NAME → T
   * (several when redefined). One inside a function, struct or block is visible only there (aliasScopes.ts).
   */
  aliases: Map<string, string[]>;
  /** Struct/class names declared with an alignment: the project's vector types (vectorTypes.ts). */
  alignedTypes: string[];
  /** The includes, in order: a quoted one's name as written, an `<…>` one's with its brackets. */
  includes: string[];
  /** The preprocessor lines, in order (for the arms a compilation takes: preprocess.ts). */
  lines: DirectiveLine[];
  /** Function bodies found in the text, by name (functionBodies.ts): check helpers are read from them. */
  functions: Map<string, string>;
  /** The constructors defined in the text, by class name (constructors.ts). */
  constructors: Map<string, Constructor[]>;
}

/** Headers larger than this are not read (generated tables, amalgamations). */
const MAX_HEADER_CHARS = 1 << 20;
/** How many include levels below the linted file are followed, and how many headers at most. */
const MAX_DEPTH = 4;
const MAX_HEADERS = 64;

/** `#define NAME` (a directive when only spaces precede the `#` on its line: checked by the caller). */
const DEFINE = /#[ \t]*define[ \t]+([A-Za-z_]\w*)/g;
const INCLUDE = /#[ \t]*include[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>)/g;

/** A macro's body from `from` to the end of its line, continuation lines joined. */
function defineBody(code: string, from: number): string {
  let end = code.indexOf("\n", from);
  while (end >= 0 && /\\\r?$/.test(code.slice(Math.max(from, end - 2), end)))
    end = code.indexOf("\n", end + 1);
  return code.slice(from, end < 0 ? code.length : end).replace(/\\\r?\n/g, " ");
}

/**
 * The facts of a file's text. `code` is the text with comments and literals blanked (codeText.ts);
 * `text` the original, for the quoted include names (blanked in `code`).
 */
export function sourceFacts(text: string, code: string): SourceFacts {
  const defines = new Map<string, string>();
  for (const m of code.matchAll(DEFINE)) {
    const lineStart = code.lastIndexOf("\n", m.index) + 1;
    if (code.slice(lineStart, m.index).trim() !== "") continue;
    defines.set(m[1]!, defineBody(code, m.index + m[0].length));
  }
  const aliases = new Map<string, string[]>();
  const alias = (name: string, type: string): void => {
    const known = aliases.get(name);
    if (known) known.push(type);
    else aliases.set(name, [type]);
  };
  for (const d of aliasDefs(code)) if (d.fileLevel) alias(d.name, d.type);
  // An include line's name is a string literal, blanked in `code`: read it from the text where the
  // code still shows the directive (a commented-out include is blank there).
  const includes: string[] = [];
  for (const m of text.matchAll(INCLUDE))
    if (code[m.index] === "#" && code.slice(code.lastIndexOf("\n", m.index) + 1, m.index).trim() === "")
      includes.push(m[1] ?? `<${m[2]!}>`);
  return {
    defines,
    aliases,
    alignedTypes: alignedTypeNames(code),
    includes,
    lines: directiveLines(text, code),
    functions: functionBodies(code),
    constructors: constructors(code),
  };
}

/** The file's own facts (macros, function bodies, constructors…), read from its whole text once per run. */
export function ownFacts(idx: FileIndex): SourceFacts {
  return idx.shared("ownSourceFacts", () => sourceFacts(idx.text, codeOnly(idx.text)));
}

/**
 * How long a header's stat and an include's resolution are trusted without asking the file system again:
 * a lint over a tree stats each header once, and an edited header is read again within this time.
 */
const TRUST_MS = 2000;

const cache = new Map<
  string,
  { checkedAt: number; mtimeMs: number; size: number; facts: SourceFacts | undefined }
>();

/** A header's facts, read again only when its modification time or size changed. */
function headerFacts(path: string): SourceFacts | undefined {
  const now = Date.now();
  const hit = cache.get(path);
  if (hit && now - hit.checkedAt < TRUST_MS) return hit.facts;
  let st;
  try {
    st = statSync(path);
  } catch {
    cache.set(path, { checkedAt: now, mtimeMs: -1, size: -1, facts: undefined });
    return undefined;
  }
  if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) {
    hit.checkedAt = now;
    return hit.facts;
  }
  let facts: SourceFacts | undefined;
  if (st.isFile() && st.size <= MAX_HEADER_CHARS) {
    try {
      const text = readFileSync(path, "utf8");
      facts = sourceFacts(text, codeOnly(text));
    } catch {
      facts = undefined;
    }
  }
  cache.set(path, { checkedAt: now, mtimeMs: st.mtimeMs, size: st.size, facts });
  return facts;
}

/** Where an include from a folder resolved, per folder, name and root (trusted for TRUST_MS). */
const resolutions: Trusted<string | undefined> = new Map();

function inside(root: string, path: string): boolean {
  const r = relative(root, path);
  return r === "" || (!r.startsWith("..") && !isAbsolute(r));
}

/** A value made for a key, and when: reused for TRUST_MS. */
export type Trusted<T> = Map<string, { at: number; value: T }>;

/** `make()`'s answer for `key`, reused for TRUST_MS (the memo is emptied when it grows large). */
export function trusted<T>(memo: Trusted<T>, key: string, make: () => T): T {
  const now = Date.now();
  const hit = memo.get(key);
  if (hit && now - hit.at < TRUST_MS) return hit.value;
  const value = make();
  if (memo.size > 4096) memo.clear();
  memo.set(key, { at: now, value });
  return value;
}

/**
 * `name` as included from a file in `dir`: `"x.h"` there, or in the nearest ancestor that has it, up to
 * `root`, else in the first of `dirs` that has it; `<x.h>` in `dirs` first, then as a quoted one.
 */
function resolveInclude(
  name: string,
  dir: string,
  root: string,
  dirs: readonly string[],
): string | undefined {
  const angle = name.startsWith("<");
  return trusted(resolutions, `${dir}\0${name}\0${root}\0${dirs.join("\0")}`, () => {
    const bare = angle ? name.slice(1, -1) : name;
    const inDirs = (): string | undefined =>
      dirs.map((d) => resolve(d, bare)).find((p) => inside(root, p) && headerFacts(p));
    return angle
      ? (inDirs() ?? searchInclude(bare, dir, root))
      : (searchInclude(bare, dir, root) ?? inDirs());
  });
}

function searchInclude(name: string, dir: string, root: string): string | undefined {
  for (let d = dir; inside(root, d); d = dirname(d)) {
    const path = resolve(d, name);
    if (inside(root, path) && headerFacts(path)) return path;
    if (d === dirname(d)) break;
  }
  return undefined;
}

/**
 * The facts of the project headers `file` includes (directly with `includes`, then theirs), nearest
 * first; `dirs`: the build's include directories. `file` must be an absolute path (an untitled document
 * has no folder to search).
 */
export function projectHeaders(
  file: string,
  includes: readonly string[],
  root?: string,
  dirs: readonly string[] = [],
): SourceFacts[] {
  if (!isAbsolute(file)) return [];
  const top = resolve(root ?? dirname(file));
  if (!inside(top, file)) return [];
  // Files of one folder with the same includes share the answer (the same array, for callers' caches).
  const key = `${dirname(resolve(file))}\0${top}\0${includes.join("\0")}\0\0${dirs.join("\0")}`;
  return trusted(closures, key, () => includedFacts(file, includes, top, dirs));
}

/** The headers' facts per including folder, includes and root. */
const closures: Trusted<SourceFacts[]> = new Map();

function includedFacts(
  file: string,
  includes: readonly string[],
  top: string,
  dirs: readonly string[],
): SourceFacts[] {
  const seen = new Set<string>([resolve(file)]);
  const out: SourceFacts[] = [];
  let level = includes.map((name) => ({ name, dir: dirname(resolve(file)) }));
  for (let depth = 0; depth < MAX_DEPTH && level.length > 0; depth++) {
    const next: typeof level = [];
    for (const { name, dir } of level) {
      const path = resolveInclude(name, dir, top, dirs);
      if (!path || seen.has(path) || seen.size > MAX_HEADERS) continue;
      seen.add(path);
      const facts = headerFacts(path)!;
      out.push(facts);
      for (const inc of facts.includes) next.push({ name: inc, dir: dirname(path) });
    }
    level = next;
  }
  return out;
}

/** Forgets every header read (tests). */
export function clearHeaderCache(): void {
  cache.clear();
  resolutions.clear();
  closures.clear();
}
