// Whether a body launches kernels through the definitions it calls: a function that calls a project
// function or macro that launches (`<<<` in its body), directly or through others, launches too, and so
// is a launcher, not a launch check, even when it ends with `return cudaGetLastError();`
// (launchChecks.ts, ownChecks.ts). Read from text: bodies are code with comments and literals blanked,
// a call is a name before `(` (template arguments between allowed), and definitions are looked up by
// name (overloads share one). Also the file's own macros and function bodies, read from its text once per
// run (the definitions a file's check candidates are followed through). Cannot see: calls through
// pointers, functions over MAX_BODY characters (functionBodies.ts), definitions in other files.
import { NOT_FUNCTIONS } from "../source/functionBodies";
import type { FileIndex } from "../source/fileIndex";
import { ownFacts } from "../preprocessor/projectHeaders";

/** How many called names a search follows before it gives up (the caller then depends on the whole file). */
export const MAX_CALLED = 64;

/** A name before `(`: the callee of a call, of a function or a function-like macro. */
const CALL = /\b([A-Za-z_]\w*)\s*(?:<[^;{}()<>]*(?:<[^;{}()<>]*>[^;{}()<>]*)*>\s*)?\(/g;

/** Words before `(` that call nothing. */
const NOT_CALLS: ReadonlySet<string> = new Set([
  ...NOT_FUNCTIONS,
  "alignof",
  "defined",
  "static_assert",
  "static_cast",
  "reinterpret_cast",
  "const_cast",
  "dynamic_cast",
]);

/** The names `code` calls, in order of first call. */
export function calledNames(code: string): string[] {
  const out = new Set<string>();
  for (const m of code.matchAll(CALL)) if (!NOT_CALLS.has(m[1]!)) out.add(m[1]!);
  return [...out];
}

/** What a body reaches through the definitions it calls. */
export interface Reach {
  /** A definition it calls, directly or through others, launches a kernel. */
  launches: boolean;
  /** Every name called on the way (defined or not): the answer holds while their definitions stand. */
  called: ReadonlySet<string>;
  /** More than MAX_CALLED names were called: the search stopped short. */
  truncated: boolean;
}

/**
 * Follows the calls of `body` (code) through `definitions` (name → body, code): whether one of them
 * launches (`<<<`), breadth first. `body`'s own `<<<` is the caller's to judge.
 */
export function reachesLaunch(body: string, definitions: ReadonlyMap<string, string>): Reach {
  const called = new Set<string>();
  const queue = calledNames(body);
  for (let i = 0; i < queue.length; i++) {
    const name = queue[i]!;
    if (called.has(name)) continue;
    if (called.size >= MAX_CALLED) return { launches: false, called, truncated: true };
    called.add(name);
    const def = definitions.get(name);
    if (def === undefined) continue;
    if (def.includes("<<<")) return { launches: true, called, truncated: false };
    queue.push(...calledNames(def));
  }
  return { launches: false, called, truncated: false };
}

/**
 * Every name of `definitions` that launches: its body has a `<<<`, or calls one that launches (all of
 * them at once, from the launches up through their callers: for a header set's many definitions).
 */
export function launchingNames(definitions: ReadonlyMap<string, string>): Set<string> {
  const callers = new Map<string, string[]>();
  const launching: string[] = [];
  for (const [name, body] of definitions) {
    if (body.includes("<<<")) launching.push(name);
    for (const callee of calledNames(body)) {
      const list = callers.get(callee);
      if (list) list.push(name);
      else callers.set(callee, [name]);
    }
  }
  const out = new Set(launching);
  for (let i = 0; i < launching.length; i++)
    for (const caller of callers.get(launching[i]!) ?? [])
      if (!out.has(caller)) {
        out.add(caller);
        launching.push(caller);
      }
  return out;
}

/** Definitions by name, the bodies of one name joined (one that launches makes the name launch). */
export function definitionMap(definitions: Iterable<readonly [string, string]>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, body] of definitions) {
    const known = out.get(name);
    out.set(name, known === undefined ? body : `${known}\n${body}`);
  }
  return out;
}

/** The file's own definitions by name, macros and functions. */
export function ownDefinitions(idx: FileIndex): ReadonlyMap<string, string> {
  return idx.shared("ownDefinitions", () => {
    const { defines, functions } = ownFacts(idx);
    return definitionMap([...defines, ...functions]);
  });
}
