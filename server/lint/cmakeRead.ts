// What a CMakeLists.txt gives CUDA sources: the architectures (CMAKE_CUDA_ARCHITECTURES, the
// CUDA_ARCHITECTURES property, -gencode/-arch flags) and the -D/-U flags. Variables are resolved as CMake
// would for the simple forms (set, list(APPEND), string(REPLACE), foreach, ${VAR}), and if/elseif/else
// chains are exclusive: a branch a CUDA build does not take (a HIP/ROCm switch) is skipped, and where
// the branch cannot be told, a macro keeps only the state every branch agrees on. Architectures are those
// of every branch that may run. Not seen: cache values given on the command line, functions' effects
// where they are called, generator expressions other than $<COMPILE_LANGUAGE:CUDA>, included files. Its
// include_directories and target_include_directories (every target's) are the unit's include folders;
// those a parent CMakeLists.txt gives its subfolders are not seen.
import { dirname, resolve } from "node:path";
import type { CMakeArg, CMakeCommand } from "./buildSyntax";
import { cmakeBlocks, type CMakeBlock } from "./cmakeBlocks";
import { cmakeCondition, expand, setVar, type CMakeVar } from "./cmakeVars";
import {
  archTokens,
  archsFromFlags,
  copyMacros,
  macroFlags,
  mergeExclusive,
  type BuildUnit,
  type MacroState,
} from "./buildFlags";

interface Scope {
  vars: Map<string, CMakeVar>;
  macros: MacroState;
}

/** A word of a command's arguments after expansion: unsure when a variable it used has branch-dependent values. */
interface Word {
  text: string;
  unsure: boolean;
  via: string[];
}

/** What the whole file gives, whichever branches ran. */
interface Found {
  archs: { values: string[]; what: string; line: number; via: string[] }[];
  /** include_directories / target_include_directories folders, as written after expansion. */
  includeDirs: string[];
  /** A project() command: this is the top-level file (its folder is the project's source folder). */
  project: boolean;
}

const FLAG_VARS: ReadonlySet<string> = new Set(["CMAKE_CUDA_FLAGS", "CUDA_NVCC_FLAGS"]);
const CUDA_ONLY = /^\$<\$<COMPILE_LANGUAGE:CUDA>:(.*)>$/s;

/** The arguments as CMake passes them: variables expanded, unquoted ones split at `;`. */
function words(args: readonly CMakeArg[], scope: Scope, skipVar?: string): Word[] {
  const out: Word[] = [];
  for (const a of args) {
    const raw = skipVar ? a.text.split(`\${${skipVar}}`).join("") : a.text;
    const e = expand(raw, scope.vars);
    if (a.quoted) {
      out.push({ text: e.text, unsure: e.unsure, via: e.via });
      continue;
    }
    const inner = CUDA_ONLY.exec(e.text)?.[1];
    if (inner === undefined && e.text.startsWith("$<")) continue;
    for (const t of (inner ?? e.text).split(";"))
      if (t.length > 0) out.push({ text: t, unsure: e.unsure, via: e.via });
  }
  return out;
}

const texts = (ws: readonly Word[]): string[] => ws.map((w) => w.text);
const viaOf = (ws: readonly Word[]): string[] => [...new Set(ws.flatMap((w) => w.via))];

/** -D/-U and arch flags in compile options or a flags variable's new words. */
function flagWords(ws: readonly Word[], scope: Scope, found: Found, what: string, line: number): void {
  macroFlags(texts(ws.filter((w) => !w.unsure)), scope.macros.defines, scope.macros.undefines);
  macroFlags(texts(ws.filter((w) => w.unsure)), scope.macros.defines, scope.macros.undefines, true);
  const text = texts(ws).join(" ");
  if (archsFromFlags(text).length > 0)
    found.archs.push({ values: text.split(/\s+/), what: `-gencode/-arch in ${what}`, line, via: viaOf(ws) });
}

/** The value words of set(VAR value… [CACHE …] [PARENT_SCOPE]). */
const setValues = (ws: readonly Word[]): Word[] => {
  const end = ws.findIndex((w) => w.text === "CACHE" || w.text === "PARENT_SCOPE");
  return end < 0 ? [...ws] : ws.slice(0, end);
};

/** A command that sets or edits a variable: set, unset, list, string. */
function variableCommand(cmd: CMakeCommand, scope: Scope, found: Found): void {
  const raw = cmd.args.map((a) => a.text);
  const sub = raw[0] ?? "";
  const target = cmd.name === "set" || cmd.name === "unset" ? sub : cmd.name === "list" ? raw[1] : undefined;
  const flagVar = target !== undefined && FLAG_VARS.has(target) ? target : undefined;
  const ws = words(cmd.args, scope);
  if (cmd.name === "set") {
    // A cache entry's value is a default the command line may override.
    const cache = raw.includes("CACHE") && !raw.includes("FORCE");
    if (!(cache && scope.vars.has(sub))) {
      setVar(scope.vars, sub, setValues(ws.slice(1)));
      const v = scope.vars.get(sub);
      if (cache && v) v.unsure = true;
    }
    if (flagVar) flagWords(setValues(words(cmd.args.slice(1), scope, flagVar)), scope, found, sub, cmd.line);
  } else if (cmd.name === "unset") scope.vars.delete(sub);
  else if (cmd.name === "list" && /^(?:APPEND|PREPEND)$/.test(sub) && raw[1]) {
    const old = scope.vars.get(raw[1]);
    const added = ws.slice(2);
    const oldWord: Word[] = old?.value ? [{ text: old.value, unsure: old.unsure, via: old.via }] : [];
    setVar(scope.vars, raw[1], sub === "APPEND" ? [...oldWord, ...added] : [...added, ...oldWord]);
    if (flagVar) flagWords(added, scope, found, raw[1], cmd.line);
  } else if (cmd.name === "string") stringCommand(cmd, ws, scope, found);
  if (
    target === "CMAKE_CUDA_ARCHITECTURES" ||
    (cmd.name === "string" && raw.includes("CMAKE_CUDA_ARCHITECTURES"))
  ) {
    const v = scope.vars.get("CMAKE_CUDA_ARCHITECTURES");
    if (v)
      found.archs.push({
        values: v.value.split(";"),
        what: "CMAKE_CUDA_ARCHITECTURES",
        line: cmd.line,
        via: v.via,
      });
  }
}

/** string(REPLACE|REGEX REPLACE|APPEND|PREPEND|JOIN …): the forms lists of architectures go through. */
function stringCommand(cmd: CMakeCommand, ws: readonly Word[], scope: Scope, found: Found): void {
  const [sub, a, b, c] = texts(ws);
  const join = (from: number): Word[] => [
    { text: texts(ws.slice(from)).join(""), unsure: ws.some((w) => w.unsure), via: viaOf(ws) },
  ];
  if (sub === "REPLACE" && a !== undefined && b !== undefined && c !== undefined) {
    const [input] = join(4);
    setVar(scope.vars, c, [{ ...input!, text: input!.text.split(a).join(b) }]);
  } else if (sub === "REGEX" && a === "REPLACE" && ws.length >= 5) {
    const [re, to, out] = texts(ws.slice(2, 5));
    const [input] = join(5);
    try {
      const text = input!.text.replace(new RegExp(re!, "g"), to!.replace(/\\(\d)/g, "$$$1"));
      setVar(scope.vars, out!, [{ ...input!, text }]);
    } catch {
      scope.vars.delete(out!);
    }
  } else if ((sub === "APPEND" || sub === "PREPEND") && a !== undefined) {
    const old = scope.vars.get(a);
    const [added] = join(2);
    const oldWord: Word = { text: old?.value ?? "", unsure: old?.unsure ?? false, via: old?.via ?? [] };
    const parts = sub === "APPEND" ? [oldWord, added!] : [added!, oldWord];
    setVar(scope.vars, a, [
      { text: texts(parts).join(""), unsure: parts.some((p) => p.unsure), via: viaOf(parts) },
    ]);
    if (FLAG_VARS.has(a)) flagWords([added!], scope, found, a, cmd.line);
  } else if (sub === "JOIN" && b !== undefined) {
    const items = ws.slice(3);
    setVar(scope.vars, b, [
      { text: texts(items).join(a ?? ""), unsure: items.some((w) => w.unsure), via: viaOf(items) },
    ]);
  }
}

/** add_compile_definitions, target_compile_options, set_target_properties…: macros and architectures. */
function buildCommand(cmd: CMakeCommand, scope: Scope, found: Found): void {
  const ws = words(cmd.args, scope);
  const t = texts(ws);
  const defs = (list: Word[]): Word[] => list.map((w) => ({ ...w, text: `-D${w.text.replace(/^-D/, "")}` }));
  const scopeWord = (w: Word): boolean => /^(?:PUBLIC|PRIVATE|INTERFACE|BEFORE)$/.test(w.text);
  switch (cmd.name) {
    case "project":
      found.project = true;
      return;
    case "include_directories":
    case "target_include_directories": {
      // $<BUILD_INTERFACE:dir> is the folder while building (words() drops other generator expressions).
      const built = cmd.args.map((a) => ({
        ...a,
        text: a.text.replace(/^\$<BUILD_INTERFACE:(.*)>$/s, "$1"),
      }));
      const all = texts(words(built, scope));
      const dirs = cmd.name === "include_directories" ? all : all.slice(1);
      found.includeDirs.push(
        ...dirs.filter((d) => !/^(?:SYSTEM|BEFORE|AFTER|PUBLIC|PRIVATE|INTERFACE)$/.test(d)),
      );
      return;
    }
    case "add_compile_definitions":
      return flagWords(defs(ws), scope, found, cmd.name, cmd.line);
    case "target_compile_definitions":
      return flagWords(defs(ws.slice(1).filter((w) => !scopeWord(w))), scope, found, cmd.name, cmd.line);
    case "add_definitions":
    case "add_compile_options":
      return flagWords(ws, scope, found, cmd.name, cmd.line);
    case "target_compile_options":
      return flagWords(
        ws.slice(1).filter((w) => !scopeWord(w)),
        scope,
        found,
        cmd.name,
        cmd.line,
      );
    case "set_target_properties": {
      const at = t.indexOf("PROPERTIES");
      for (let i = at + 1; at >= 0 && i + 1 < t.length; i += 2)
        if (t[i] === "CUDA_ARCHITECTURES")
          found.archs.push({
            values: [t[i + 1]!],
            what: `CUDA_ARCHITECTURES of ${t[0]}`,
            line: cmd.line,
            via: ws[i + 1]!.via,
          });
      return;
    }
    case "set_property": {
      const at = t.indexOf("PROPERTY");
      if (at >= 0 && t[at + 1] === "CUDA_ARCHITECTURES")
        found.archs.push({
          values: t.slice(at + 2),
          what: "CUDA_ARCHITECTURES",
          line: cmd.line,
          via: viaOf(ws.slice(at + 2)),
        });
      return;
    }
  }
}

const cloneScope = (s: Scope): Scope => ({ vars: new Map(s.vars), macros: copyMacros(s.macros) });

/** The scope after one of `outcomes` ran: macros as every outcome agrees, variables with all their values. */
function mergeScopes(outcomes: readonly Scope[]): Scope {
  const vars = new Map<string, CMakeVar>();
  for (const name of new Set(outcomes.flatMap((s) => [...s.vars.keys()]))) {
    const values = outcomes.map((s) => s.vars.get(name));
    const same = values.every((v) => v?.value === values[0]?.value);
    const items = [...new Set(values.flatMap((v) => (v?.value ? v.value.split(";") : [])))];
    vars.set(name, {
      value: same ? (values[0]?.value ?? "") : items.join(";"),
      unsure: !same || values.some((v) => v?.unsure),
      via: [...new Set(values.flatMap((v) => v?.via ?? []))],
      ...(values.some((v) => !v?.value || v.maybeEmpty) ? { maybeEmpty: true } : {}),
      ...(values.some((v) => v?.unknown) ? { unknown: true } : {}),
    });
  }
  return { vars, macros: mergeExclusive(outcomes.map((s) => s.macros)) };
}

/** A call of the project's own function or macro: the variables it is given by name are no longer known. */
function projectCall(cmd: CMakeCommand, scope: Scope): void {
  for (const a of cmd.args)
    if (!a.quoted && /^[A-Z][A-Z0-9_]*$/.test(a.text))
      scope.vars.set(a.text, { value: "", unsure: true, via: [], unknown: true });
}

function run(blocks: readonly CMakeBlock[], scope: Scope, found: Found, defined: Set<string>): Scope {
  let s = scope;
  for (const b of blocks) {
    if (b.kind === "command") {
      if (/^(?:set|unset|list|string)$/.test(b.cmd.name)) variableCommand(b.cmd, s, found);
      else if (defined.has(b.cmd.name)) projectCall(b.cmd, s);
      else buildCommand(b.cmd, s, found);
    } else if (b.kind === "if") s = runIf(b.branches, s, found, defined);
    else if (b.kind === "foreach") s = runForeach(b.cmd, b.body, s, found, defined);
    else if (b.kind === "while") s = mergeScopes([s, run(b.body, cloneScope(s), found, defined)]);
    else if (b.kind === "definition") {
      // A function's body: its architectures, nothing else; where it is called, what it sets is unknown.
      defined.add(b.name);
      run(b.body, cloneScope(s), found, defined);
    }
  }
  return s;
}

/** An if/elseif/else chain: the branches a CUDA build may take, merged. */
function runIf(
  branches: readonly { cond?: CMakeArg[]; body: CMakeBlock[] }[],
  s: Scope,
  found: Found,
  defined: Set<string>,
): Scope {
  const outcomes: Scope[] = [];
  let certain = false;
  for (const br of branches) {
    const taken = br.cond ? cmakeCondition(br.cond, s.vars) : true;
    if (taken === false) continue;
    outcomes.push(run(br.body, cloneScope(s), found, defined));
    if (taken === true) {
      certain = true;
      break;
    }
  }
  if (!certain) outcomes.push(s);
  return outcomes.length === 1 ? outcomes[0]! : mergeScopes(outcomes);
}

/** foreach(v a b c) / foreach(v IN LISTS l ITEMS x): the body once per item (at most 64). */
function runForeach(
  cmd: CMakeCommand,
  body: readonly CMakeBlock[],
  scope: Scope,
  found: Found,
  defined: Set<string>,
): Scope {
  let s = scope;
  const [loopVar, ...rest] = words(cmd.args, s);
  if (!loopVar) return s;
  let items: Word[] = rest;
  if (rest[0]?.text === "RANGE") items = [];
  else if (rest[0]?.text === "IN") {
    items = [];
    let mode = "";
    for (const w of rest.slice(1)) {
      if (/^(?:LISTS|ITEMS|ZIP_LISTS)$/.test(w.text)) mode = w.text;
      else if (mode === "ITEMS") items.push(w);
      else if (mode === "LISTS") {
        const v = s.vars.get(w.text);
        for (const t of v?.value.split(";") ?? [])
          if (t) items.push({ text: t, unsure: v!.unsure, via: [w.text, ...v!.via] });
      }
    }
  }
  if (items.length === 0) return mergeScopes([s, run(body, cloneScope(s), found, defined)]);
  for (const item of items.slice(0, 64)) {
    setVar(s.vars, loopVar.text, [item]);
    s = run(body, s, found, defined);
  }
  return s;
}

/** CMake: one unit for the whole project. */
export function readCMake(file: string, text: string, notes: string[]): BuildUnit[] {
  const found: Found = { archs: [], includeDirs: [], project: false };
  const end = run(
    cmakeBlocks(text),
    { vars: new Map(), macros: { defines: new Map(), undefines: new Set() } },
    found,
    new Set(),
  );
  const values: string[] = [];
  // Where they came from, grouped: "CMAKE_CUDA_ARCHITECTURES (lines 5, 9) through ${ARCHS}".
  const from = new Map<string, number[]>();
  for (const a of found.archs) {
    const flags = a.what.startsWith("-gencode");
    const read = flags ? archsFromFlags(a.values.join(" ")).map((sm) => `sm_${sm}`) : a.values;
    values.push(...read.flatMap((v) => v.split(";")));
    if (read.every((v) => v.trim() === "")) continue;
    const via = a.via.length > 0 ? ` through ${a.via.map((v) => `\${${v}}`).join(", ")}` : "";
    const key = `${a.what}\0${via}`;
    from.set(key, [...(from.get(key) ?? []), a.line]);
  }
  const archs = archTokens(values, file, notes);
  const shown = [...from].map(([key, lines]) => {
    const [what, via] = key.split("\0");
    const at = [...new Set(lines)];
    return `${what} (line${at.length > 1 ? "s" : ""} ${at.join(", ")})${via}`;
  });
  return [
    {
      backend: "cuda",
      archs,
      ...(archs.length > 0 && shown.length > 0
        ? { archsFrom: `from ${shown.slice(0, 4).join("; ")}${shown.length > 4 ? "; …" : ""}` }
        : {}),
      defines: end.macros.defines,
      undefines: end.macros.undefines,
      pytorch: false,
      ...includeDirsOf(file, found),
    },
  ];
}

/**
 * The include folders, absolute: relative ones and ${CMAKE_CURRENT_SOURCE_DIR}/${CMAKE_CURRENT_LIST_DIR}
 * against the file's folder, and ${PROJECT_SOURCE_DIR}/${CMAKE_SOURCE_DIR} too where the file is the
 * top-level one (it calls project()); a folder still naming another variable or a generator expression
 * is not known.
 */
function includeDirsOf(file: string, found: Found): { includeDirs?: string[] } {
  const dir = dirname(file);
  const here = found.project
    ? /\$\{(?:CMAKE_CURRENT_SOURCE_DIR|CMAKE_CURRENT_LIST_DIR|PROJECT_SOURCE_DIR|CMAKE_SOURCE_DIR)\}/g
    : /\$\{(?:CMAKE_CURRENT_SOURCE_DIR|CMAKE_CURRENT_LIST_DIR)\}/g;
  const dirs = found.includeDirs
    .map((d) => d.replace(here, dir))
    .filter((d) => d.length > 0 && !/\$[{<]/.test(d))
    .map((d) => resolve(dir, d));
  return dirs.length > 0 ? { includeDirs: [...new Set(dirs)] } : {};
}
