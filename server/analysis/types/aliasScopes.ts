// Where a type alias is visible. `typedef T N;` and `using N = T;` at file or namespace level (also inside
// `extern "C" { … }`) name a type for the whole file and for files including it; one inside a function,
// a struct or any other block names it only in that block, from the alias on (so a launcher's
// `using T = __nv_bfloat16;` does not make every kernel's `template <typename T>` bf16). Read from the code
// text (comments and literals blanked) by matching braces: braces an `#if` leaves unbalanced, or a macro
// body's, can misplace a scope; `using namespace` and qualified names (`ns::T`) are not followed.
import type { FileIndex } from "../source/fileIndex";
import { codeOnly } from "../source/codeText";
import { halfKindOfType, type HalfKind } from "./halfTypes";

export const TYPEDEF = /\btypedef\s+((?:(?:const|volatile)\s+)*[A-Za-z_][\w:]*)\s+([A-Za-z_]\w*)\s*;/g;
export const USING = /\busing\s+([A-Za-z_]\w*)\s*=\s*((?:(?:const|volatile)\s+)*[A-Za-z_][\w:]*)\s*;/g;

/** A `{…}` block of the code: [open, close] offsets of its braces; `namespace` for namespace-like ones. */
export interface Block {
  open: number;
  close: number;
  namespace: boolean;
}

/** `namespace`, `namespace a::b`, `inline namespace x` or `extern "C"` (the literal blanked) just before a `{`. */
const NAMESPACE_HEAD = /\b(?:namespace(?:\s+[A-Za-z_][\w:]*)?|extern)\s*$/;

/** Every block of `code`, by its opening brace, in document order (an unclosed one runs to the end). */
export function blocks(code: string): Block[] {
  const out: Block[] = [];
  const open: Block[] = [];
  for (let i = 0; i < code.length; i++) {
    const c = code.charCodeAt(i);
    if (c === 123) {
      const b = {
        open: i,
        close: code.length,
        namespace: NAMESPACE_HEAD.test(code.slice(Math.max(0, i - 80), i)),
      };
      out.push(b);
      open.push(b);
    } else if (c === 125) {
      const b = open.pop();
      if (b) b.close = i;
    }
  }
  return out;
}

/** The innermost block that is not namespace-like holding `at`, if any (`all` from blocks()). */
export function scopeAt(all: readonly Block[], at: number): Block | undefined {
  let found: Block | undefined;
  for (const b of all) {
    if (b.open >= at) break;
    if (at < b.close && !b.namespace) found = b;
  }
  return found;
}

/** One alias definition of a file: its name, the type it names, where it ends, and its block (if any). */
export interface AliasDef {
  name: string;
  type: string;
  /** Offset just after the definition: the alias is visible from there. */
  from: number;
  /** Where its block closes (the file's end for a file-level alias). */
  to: number;
  /** Whether it is visible in the whole file (file or namespace level). */
  fileLevel: boolean;
}

/** Every alias definition of `code` (comments and literals blanked), in document order. */
export function aliasDefs(code: string): AliasDef[] {
  const found: { name: string; type: string; at: number; end: number }[] = [];
  for (const m of code.matchAll(TYPEDEF))
    found.push({ name: m[2]!, type: m[1]!, at: m.index, end: m.index + m[0].length });
  for (const m of code.matchAll(USING))
    found.push({ name: m[1]!, type: m[2]!, at: m.index, end: m.index + m[0].length });
  if (found.length === 0) return [];
  found.sort((a, b) => a.at - b.at);
  const all = blocks(code);
  return found.map(({ name, type, at, end }) => {
    const block = scopeAt(all, at);
    return { name, type, from: end, to: block ? block.close : code.length, fileLevel: !block };
  });
}

/** An alias visible in part of the file: its half kind, or null for an alias of another type (it hides a file-level one). */
export interface ScopedAlias {
  name: string;
  type: string;
  kind: HalfKind | null;
  from: number;
  to: number;
}

/**
 * The file's block-scoped aliases (those inside a function, struct or block), with their half kind read
 * through the half types, the file-level aliases `fileKinds` and the block-scoped aliases before them.
 */
export function scopedAliases(idx: FileIndex, fileKinds: ReadonlyMap<string, HalfKind>): ScopedAlias[] {
  return idx.shared("scopedAliases", () => {
    const code = codeOnly(idx.text);
    const out: ScopedAlias[] = [];
    for (const d of aliasDefs(code)) {
      if (d.fileLevel) continue;
      const type = d.type.replace(/\b(const|volatile)\b/g, "").trim();
      const inner = scopedKindAt(out, type, d.from);
      const kind = halfKindOfType(type) ?? (inner !== undefined ? inner : fileKinds.get(type)) ?? null;
      out.push({ name: d.name, type: d.type, kind, from: d.from, to: d.to });
    }
    return out;
  });
}

/** The block-scoped alias `name` visible at `at` (the latest-defined one), if any. */
export function scopedAliasAt(
  aliases: readonly ScopedAlias[],
  name: string,
  at: number,
): ScopedAlias | undefined {
  let found: ScopedAlias | undefined;
  for (const a of aliases) if (a.name === name && a.from <= at && at < a.to) found = a;
  return found;
}

/** The half kind `name` names at `at` through a block-scoped alias: undefined where none is visible. */
export function scopedKindAt(
  aliases: readonly ScopedAlias[],
  name: string,
  at: number,
): HalfKind | null | undefined {
  return scopedAliasAt(aliases, name, at)?.kind;
}
