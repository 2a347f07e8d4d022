// Which `#if`/`#ifdef`/`#elif`/`#else` arms of a file a compilation pass compiles, reading its directive
// lines in order as the preprocessor does, in three-valued logic: object-like `#define`s and `#undef`s
// before a condition count (the file's own and, at each `#include "…"` or `<…>` one found in the build's
// include directories, its project headers', projectHeaders.ts), on top of what the build says (macroEnv.ts). A define under an arm not known to be
// compiled leaves its macro unknown; one only under HIP conditions makes it a HIP switch (undefined in a
// CUDA build). Include guards (`#ifndef X` then `#define X`) are read as a first inclusion. The
// toolkit's version macros are at least the floor the targets need (macroEnv.ts, toolkitVersion.ts). It
// cannot see other `<…>` headers, function-like macros' values or the toolkit's exact version: conditions
// on those are unknown.
import { holds, type MacroInfo, type MacroLookup } from "./condition";
import type { DirectiveLine } from "./directiveLines";
import { baseLookup, cudaBuildFact, namesHip, type MacroEnv, type Pass } from "./macroEnv";

type Tri = boolean | undefined;

const and = (a: Tri, b: Tri): Tri => (a === false || b === false ? false : a && b);
const or = (a: Tri, b: Tri): Tri =>
  a === true || b === true ? true : a === undefined || b === undefined ? undefined : false;
const not = (a: Tri): Tri => (a === undefined ? undefined : !a);

/** An arm's body [start, end) and whether the pass compiles it. */
export interface ArmState {
  start: number;
  end: number;
  active: Tri;
}

/** One open `#if` chain: whether its enclosing code is compiled, whether an arm was taken, the arm read. */
interface Frame {
  parent: Tri;
  taken: Tri;
  active: Tri;
  /** Some condition of the chain (or of an enclosing one) names HIP. */
  hip: boolean;
  /** Where the arm being read starts. */
  start: number;
}

/** The headers an `#include "name"` brings in, each as its directive lines (nearest first). */
export type IncludeReader = (name: string) => readonly (readonly DirectiveLine[])[];

const NAME = /^\s*([A-Za-z_]\w*)/;

/** One pass over directive lines: the macro table it builds and the arms it decides. */
export class Preprocessor {
  /** What the lines read so far made of each macro. */
  private readonly table = new Map<string, MacroInfo>();
  /** Macros defined only where HIP's conditions hold, so far. */
  private readonly hipOnly = new Set<string>();
  private readonly base: MacroLookup;
  readonly lookup: MacroLookup = (name) => {
    const own = this.table.get(name);
    if (own && (own.defined !== undefined || !cudaBuildFact(name, this.env))) return own;
    return this.base(name);
  };

  constructor(
    pass: Pass,
    private readonly env: MacroEnv,
    private readonly include?: IncludeReader,
  ) {
    this.base = baseLookup(pass, env, this.hipOnly);
  }

  /**
   * Reads `lines` (a whole file); calls `onArm` for each arm of it, in order of its end. Its quoted
   * includes are read through `include` (a header's own are among what `include` returns for it).
   */
  read(lines: readonly DirectiveLine[], onArm?: (arm: ArmState) => void, textEnd = Infinity): void {
    this.readLines(lines, true, onArm, textEnd);
  }

  private readLines(
    lines: readonly DirectiveLine[],
    includes: boolean,
    onArm?: (arm: ArmState) => void,
    textEnd = Infinity,
  ): void {
    const stack: Frame[] = [];
    const here = (): Tri => (stack.length > 0 ? stack[stack.length - 1]!.active : true);
    const close = (f: Frame, at: number): void => onArm?.({ start: f.start, end: at, active: f.active });
    lines.forEach((d, i) => {
      const top = stack[stack.length - 1];
      switch (d.word) {
        case "if":
        case "ifdef":
        case "ifndef": {
          const parent = here();
          const cond = parent === false ? false : this.condition(d, lines[i + 1]);
          const hip = (top?.hip ?? false) || namesHip(d.rest);
          stack.push({ parent, taken: cond, active: and(parent, cond), hip, start: d.end });
          return;
        }
        case "elif":
        case "else": {
          if (!top) return;
          close(top, d.hash);
          const cond = top.parent === false ? false : d.word === "else" ? true : holds(d.rest, this.lookup);
          top.active = and(top.parent, and(not(top.taken), cond));
          top.taken = or(top.taken, cond);
          top.hip ||= namesHip(d.rest);
          top.start = d.end;
          return;
        }
        case "endif":
          if (top) close(top, d.hash);
          stack.pop();
          return;
        default:
          if (d.word === "include") {
            if (includes && here() !== false) this.includeHeaders(d.rest, here());
          } else this.statement(d, here(), top?.hip ?? false);
      }
    });
    for (const f of stack) close(f, textEnd);
  }

  /** An `#if`/`#ifdef`/`#ifndef` condition; an include guard (`#ifndef X` then `#define X`) holds. */
  private condition(d: DirectiveLine, next: DirectiveLine | undefined): Tri {
    if (d.word === "if") return holds(d.rest, this.lookup);
    const name = NAME.exec(d.rest)?.[1];
    if (!name) return undefined;
    const defined = this.lookup(name).defined;
    const guard =
      d.word === "ifndef" &&
      defined === undefined &&
      next?.word === "define" &&
      new RegExp(`^\\s*${name}\\s*$`).test(next.rest);
    if (guard) return true;
    return defined === undefined ? undefined : defined === (d.word === "ifdef");
  }

  /** `#define` and `#undef` where the enclosing arms are compiled (`active`), under HIP conditions (`hip`). */
  private statement(d: DirectiveLine, active: Tri, hip: boolean): void {
    if (d.word !== "define" && d.word !== "undef") return;
    const m = NAME.exec(d.rest);
    if (!m) return;
    const name = m[1]!;
    if (active === false) {
      if (d.word === "define" && hip) this.hipOnly.add(name);
      return;
    }
    if (active === undefined) this.table.set(name, { defined: undefined });
    else if (d.word === "undef") this.table.set(name, { defined: false });
    else {
      const after = d.rest.slice(m[0].length);
      this.table.set(
        name,
        after.startsWith("(") ? { defined: true, functionLike: true } : { defined: true, body: after.trim() },
      );
    }
  }

  /**
   * The project headers of `#include "name"` (or `<name>`, found in the build's include directories),
   * deepest first; what they change is unknown if `active` is.
   */
  private includeHeaders(rest: string, active: Tri): void {
    const m = /^\s*(?:"([^"]+)"|<([^>]+)>)/.exec(rest);
    const name = m?.[1] ?? (m?.[2] === undefined ? undefined : `<${m[2]}>`);
    if (!name || !this.include) return;
    const before = active === undefined ? new Map(this.table) : undefined;
    for (const lines of [...this.include(name)].reverse()) this.readLines(lines, false);
    if (!before) return;
    for (const [k, v] of this.table) if (before.get(k) !== v) this.table.set(k, { defined: undefined });
  }
}

/**
 * The arms of `lines` no pass of `passes` compiles, as body ranges [start, end): `textEnd` closes an arm
 * the file leaves open.
 */
export function deadArms(
  lines: readonly DirectiveLine[],
  passes: readonly Pass[],
  env: MacroEnv,
  include: IncludeReader | undefined,
  textEnd: number,
): [number, number][] {
  let live: boolean[] | undefined;
  let arms: [number, number][] = [];
  for (const pass of passes) {
    const states: ArmState[] = [];
    new Preprocessor(pass, env, include).read(lines, (a) => states.push(a), textEnd);
    live ??= states.map(() => false);
    arms = states.map((a) => [a.start, a.end]);
    states.forEach((a, i) => {
      if (a.active !== false) live![i] = true;
    });
  }
  return arms.filter((_, i) => !live![i]);
}
