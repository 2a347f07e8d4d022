// What a file's declarations mean beyond its own definitions: launch checks (a project macro that
// expands to cudaGetLastError, or a project header's function that calls it, counts as a check:
// launchChecks.ts) and type aliases of the FP16/BF16 element types
// (`typedef __nv_bfloat16 floatX;`), read from the file's code and its project headers
// (projectHeaders.ts), at file or namespace level only (aliasScopes.ts); the project's aligned vector
// types (vectorTypes.ts) and macro bodies (for dispatch macros, dispatch.ts). A whole-file fact: an edit
// that changes the file's macro, alias, include or aligned-struct lines makes every rule that read it run
// over the whole file again (fileContext.ts).
import type { BuildFacts, LintContext } from "../../rules/rule";
import { codeOnly } from "../source/codeText";
import { FileIndex } from "../source/fileIndex";
import { BUILTIN_CHECKS, launchChecks } from "../launches/launchChecks";
import { halfKindOfType, type HalfKind } from "./halfTypes";
import { alignedTypeNames } from "./vectorTypes";
import type { Constructor } from "./constructors";
import {
  projectHeaders,
  sourceFacts,
  trusted,
  type SourceFacts,
  type Trusted,
} from "../preprocessor/projectHeaders";

/** An alias of an FP16/BF16 type; `certain` when every definition names that type (not `#if`-chosen). */
export interface HalfAlias {
  kind: HalfKind;
  certain: boolean;
}

export interface DeclEnv {
  /** Names whose call counts as a launch check: built in, configured, or macros expanding to one. */
  launchChecks: ReadonlySet<string>;
  /** Alias names of the half types, defined at file or namespace level (block-scoped ones: aliasScopes.ts). */
  halfAliases: ReadonlyMap<string, HalfAlias>;
  /** The project's own vector types: structs declared with an alignment (vectorTypes.ts). */
  vectorTypes: ReadonlySet<string>;
  /** `#define NAME body` of the file and its project headers (the file's own win). */
  defines: ReadonlyMap<string, string>;
  /** The function bodies the project headers define, by name (functionBodies.ts; the file's own: ownFacts). */
  headerFunctions: ReadonlyMap<string, string>;
  /** The constructors the project headers define, by class name (the file's own: constructors.ts). */
  headerConstructors: ReadonlyMap<string, readonly Constructor[]>;
}

/** What declEnv reads of a lint context: the build's include directories where it has them. */
type DeclContext = Pick<LintContext, "tree" | "text" | "fileName" | "options"> & {
  build?: Pick<BuildFacts, "includeDirs">;
};

export function declEnv(ctx: DeclContext): DeclEnv {
  const idx = FileIndex.of(ctx);
  idx.reads("context:decls");
  return idx.shared("declEnv", () => {
    // Relints of one document mostly see the same macro, include and alias lines: reuse the last answer
    // for them (headers are looked at again after a few seconds).
    const key = [
      ctx.fileName,
      ctx.options.headerRoot,
      ...(ctx.build?.includeDirs ?? []),
      ...ctx.options.launchCheckMacros,
      declEnvKey(idx),
    ].join("\0");
    return trusted(recent, key, () => makeEnv(idx, ctx));
  });
}

const recent: Trusted<DeclEnv> = new Map();

function makeEnv(idx: FileIndex, ctx: DeclContext): DeclEnv {
  // The whole file's code: a windowed run's codeText blanks only its window.
  const own = sourceFacts(idx.text, codeOnly(idx.text));
  const headers = projectHeaders(ctx.fileName, own.includes, ctx.options.headerRoot, ctx.build?.includeDirs);
  const seeds = [...BUILTIN_CHECKS, ...ctx.options.launchCheckMacros];
  // The headers' part is worked out once per set of headers (files of a folder share it); a header
  // macro that expands to a macro the including file defines is not followed.
  let fromHeaders = headerEnvs.get(headers);
  if (!fromHeaders || fromHeaders.seeds !== seeds.join(",")) {
    fromHeaders = {
      seeds: seeds.join(","),
      checks: launchChecks(
        headers.flatMap((h) => [...h.defines, ...h.functions]),
        seeds,
      ),
      aliases: halfAliases(headers),
      vectors: headers.flatMap((h) => h.alignedTypes),
      defines: new Map(headers.flatMap((h) => [...h.defines])),
      constructors: joined(headers.map((h) => h.constructors)),
      functions: new Map(headers.flatMap((h) => [...h.functions])),
    };
    headerEnvs.set(headers, fromHeaders);
  }
  return {
    // The file's own functions are not read here (the key covers its macro lines only): the rule reads
    // them when it needs them (launchChecks.ts fileLaunchChecks).
    launchChecks: launchChecks(own.defines, fromHeaders.checks),
    halfAliases: own.aliases.size === 0 ? fromHeaders.aliases : halfAliases([own, ...headers]),
    vectorTypes: new Set([...fromHeaders.vectors, ...own.alignedTypes]),
    defines: own.defines.size === 0 ? fromHeaders.defines : new Map([...fromHeaders.defines, ...own.defines]),
    headerConstructors: fromHeaders.constructors,
    headerFunctions: fromHeaders.functions,
  };
}

/** Per set of project headers (projectHeaders.ts returns the same array for the same set): their checks. */
const headerEnvs = new WeakMap<
  readonly SourceFacts[],
  {
    seeds: string;
    checks: Set<string>;
    aliases: Map<string, HalfAlias>;
    vectors: string[];
    defines: Map<string, string>;
    constructors: Map<string, Constructor[]>;
    functions: Map<string, string>;
  }
>();

/** One map of lists from several (a class's constructors from each header that defines some). */
function joined<T>(maps: readonly ReadonlyMap<string, T[]>[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const m of maps) for (const [k, v] of m) out.set(k, [...(out.get(k) ?? []), ...v]);
  return out;
}

/** Resolves every alias through other aliases (a few levels) to a half kind, or to nothing. */
function halfAliases(files: readonly SourceFacts[]): Map<string, HalfAlias> {
  const defs = new Map<string, string[]>();
  for (const f of files)
    for (const [name, types] of f.aliases) defs.set(name, [...(defs.get(name) ?? []), ...types]);
  const kindOf = (type: string, depth: number): HalfKind | undefined => {
    const k = halfKindOfType(type);
    if (k || depth > 4) return k;
    const next = defs.get(type.replace(/\b(const|volatile)\b/g, "").trim());
    const kinds = next?.map((t) => kindOf(t, depth + 1));
    // Through an alias only when all its definitions agree.
    return kinds && kinds.every((x) => x && x === kinds[0]) ? kinds[0] : undefined;
  };
  const out = new Map<string, HalfAlias>();
  for (const [name, types] of defs) {
    if (halfKindOfType(name)) continue; // `typedef __half half;` (HIP shims): the name is known already
    const kinds = types.map((t) => kindOf(t, 0));
    const half = kinds.filter((k): k is HalfKind => k !== undefined);
    if (half.length === 0) continue;
    // `#if` chooses among definitions (llm.c's floatX: float, half or bf16): the last half one is the
    // default build's in the common `#if … #else` layout; operators are judged only on certain aliases.
    out.set(name, {
      kind: half[half.length - 1]!,
      certain: half.length === kinds.length && new Set(half).size === 1,
    });
  }
  return out;
}

/**
 * The lines an edit may change the environment through: macro lines with their continuation lines,
 * include and alias lines (hashed). As one regex, `#[ \t]*(?:define|include)\b…|\b(?:typedef|using)\b…`,
 * it cannot skip ahead to a fixed string and tries both at every character: envLines finds the same
 * matches from the `#`s and the alias words instead.
 */
const MACRO_LINE = /#[ \t]*(?:define|include)\b(?:[^\n]*\\\r?\n)*[^\n]*/y;
const ALIAS_WORD = /\b(?:typedef|using)\b/g;
const ALIAS_LINE = /\b(?:typedef|using)\b[^;{}]*;/y;

/**
 * The matches, in order, of the one regex above scanned over `text`: every place where either part
 * matches, taken in order while each starts at or after the end of the last one taken (the parts start
 * with different characters, so never at one place).
 */
export function envLines(text: string): string[] {
  const macros: [number, string][] = [];
  for (let at = text.indexOf("#"); at >= 0; at = text.indexOf("#", at + 1)) {
    MACRO_LINE.lastIndex = at;
    const m = MACRO_LINE.exec(text);
    if (m) macros.push([at, m[0]]);
  }
  const aliases: [number, string][] = [];
  ALIAS_WORD.lastIndex = 0;
  // test, not exec (no match array per word): the word ends at lastIndex, `typedef` in f, `using` in g.
  while (ALIAS_WORD.test(text)) {
    const end = ALIAS_WORD.lastIndex;
    const at = end - (text.charCodeAt(end - 1) === 0x66 ? 7 : 5);
    ALIAS_LINE.lastIndex = at;
    const m = ALIAS_LINE.exec(text);
    if (m) aliases.push([at, m[0]]);
  }
  const out: string[] = [];
  let end = 0;
  for (let i = 0, j = 0; i < macros.length || j < aliases.length;) {
    const [at, line] =
      j >= aliases.length || (i < macros.length && macros[i]![0] < aliases[j]![0])
        ? macros[i++]!
        : aliases[j++]!;
    if (at < end) continue;
    out.push(line);
    end = at + line.length;
  }
  return out;
}

/** A short key of the file's own environment lines: equal keys, equal environments (headers aside). */
export function declEnvKey(idx: FileIndex): string {
  return idx.shared("declEnvKey", () => {
    // FNV-1a over the matched lines: the key joins the context key, whose parts are comma-separated.
    let h = 0x811c9dc5;
    // The aligned struct names too (vectorTypes.ts): their lines are no macro, include or alias lines.
    for (const s of [...envLines(idx.text), ...alignedTypeNames(idx.text)]) {
      for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
      h = Math.imul(h ^ 10, 0x01000193);
    }
    return (h >>> 0).toString(16);
  });
}
