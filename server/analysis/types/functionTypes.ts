// The 2-byte element type names that hold inside one function definition, beyond the half types and the
// file-level aliases (declEnv.ts): the block-scoped aliases visible in it (aliasScopes.ts), and its
// template type parameters that this file instantiates with a 16-bit type (instantiations.ts); a
// template parameter hides a file-level alias of the same name. What the instantiations say depends on
// the whole file: a caller reading them records it (FileIndex.readsWholeFile).
import type { FileIndex, FunctionSpan } from "../source/fileIndex";
import type { DeclEnv } from "./declEnv";
import type { HalfKind } from "./halfTypes";
import { codeOnly } from "../source/codeText";
import { scopedAliases } from "./aliasScopes";
import { instantiations, templateTypeParams, type Instantiation } from "./instantiations";

/** A 16-bit scalar type a name stands for over [from, to), and, for a template parameter, the instantiation that makes it so. */
export interface LocalTypeName {
  kind: "half" | "bf16";
  from: number;
  to: number;
  instantiation?: Instantiation;
}

export interface FunctionTypeNames {
  /** File-level alias names hidden by the function's template parameters. */
  hidden: Set<string>;
  /** Names with a 16-bit type in part or all of the function. */
  names: Map<string, LocalTypeName[]>;
  /** Template type parameters the answer read instantiations for (those `code` points to, when given). */
  templateParams: string[];
}

const scalar = (k: string | null | undefined): k is "half" | "bf16" => k === "half" || k === "bf16";

/**
 * `code`: the function's code, when only the template parameters it declares pointers to (`T* x`,
 * `const T* __restrict__ x`) are wanted: the others are not looked up.
 */
export function functionTypeNames(
  idx: FileIndex,
  env: DeclEnv,
  fn: FunctionSpan,
  code?: string,
): FunctionTypeNames {
  const names = new Map<string, LocalTypeName[]>();
  const add = (name: string, t: LocalTypeName): void => {
    names.set(name, [...(names.get(name) ?? []), t]);
  };
  const mayAlias = idx.shared("mayAlias", () => idx.text.includes("typedef") || idx.text.includes("using"));
  const fileKinds = (): Map<string, HalfKind> => new Map([...env.halfAliases].map(([n, a]) => [n, a.kind]));
  for (const a of mayAlias ? scopedAliases(idx, fileKinds()) : [])
    if (scalar(a.kind) && a.from < fn.end && a.to > fn.start)
      add(a.name, { kind: a.kind, from: a.from, to: a.to });
  const all = templateTypeParams(codeOnly(idx.text), fn.start) ?? [];
  const named = all.filter((p) => p !== "");
  const pointee =
    code !== undefined && named.length > 0
      ? new RegExp(`\\b(${named.join("|")})\\s*(?:const\\s*)?\\*`, "g")
      : undefined;
  const pointedTo = new Set(pointee ? [...code!.matchAll(pointee)].map((m) => m[1]!) : named);
  const params = named.filter((p) => pointedTo.has(p));
  const hidden = new Set(params.filter((p) => env.halfAliases.has(p)));
  for (const p of params) {
    const first = instantiations(idx, env)
      .of(fn, all.indexOf(p))
      .find((i) => scalar(i.kind));
    if (first && scalar(first.kind))
      add(p, { kind: first.kind, from: fn.start, to: fn.end, instantiation: first });
  }
  return { hidden, names, templateParams: params };
}

/** What `name` stands for at `at`, from functionTypeNames' list for it (the innermost, latest-starting one). */
export function typeNameAt(
  list: readonly LocalTypeName[] | undefined,
  at: number,
): LocalTypeName | undefined {
  let found: LocalTypeName | undefined;
  for (const t of list ?? []) if (t.from <= at && at < t.to && (!found || t.from >= found.from)) found = t;
  return found;
}
