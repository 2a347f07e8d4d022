// What a Python script that compiles sources when it runs (torch.utils.cpp_extension.load / load_inline,
// as a kernel's test or benchmark does) gives them: one unit per call, listing the sources it names
// (relative to the script's folder, through os.path.join(dirname(__file__), …), f"{dir}/…", a glob, a
// list variable, a function of the script or of the project's helper module). They are PyTorch extension
// builds: PyTorch's nvcc flags, then the script's (setupPyRead's scriptBuild: every flag the script
// writes, in order, so a -U undoes PyTorch's -D), and its `extra_include_paths` and -I flags
// (pythonPaths.ts). Not seen: paths built from values read at run time,
// sources relative to a working folder other than the script's; several calls with different flags in
// one script share the script's flags.
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { BuildUnit } from "./buildFlags";
import type { PyToken } from "./buildSyntax";
import { pythonStatements, type PyStatement } from "./pythonBlocks";
import { callsOf, type CallArg } from "./pythonExprs";
import { definitionOf, scriptHelpers, type HelperLookup } from "./pythonHelpers";
import { scriptBuild } from "./setupPyRead";
import { pythonIncludeDirs } from "./pythonPaths";

const SOURCE = /\.(?:cu|cuh|cpp|cc|cxx|c)$/;

const flatten = (stmts: readonly PyStatement[]): PyToken[] =>
  stmts.flatMap((s) => [...s.tokens, ...flatten(s.body ?? [])]);

/** The arguments naming sources: load(name, sources, …); load_inline(name, cpp_sources, cuda_sources, …). */
function sourceArgs(fn: string, args: readonly CallArg[]): PyToken[] {
  const keywords = fn === "load" ? ["sources"] : ["cpp_sources", "cuda_sources"];
  const positions = fn === "load" ? [1] : [1, 2];
  return args.flatMap((a, i) =>
    (a.keyword ? keywords.includes(a.keyword) : positions.includes(i)) ? a.tokens : [],
  );
}

/** The tokens that give a sources expression's values: its own, and those of the names it uses (two deep). */
function sourceTokens(
  tokens: readonly PyToken[],
  stmts: readonly PyStatement[],
  helper: HelperLookup,
  depth = 0,
): PyToken[] {
  const out = [...tokens];
  if (depth >= 2) return out;
  tokens.forEach((t, i) => {
    if (t.kind !== "name" || tokens[i - 1]?.text === ".") return;
    const h = helper(t.text);
    const given = h && "stmts" in h ? h.stmts : definitionOf(stmts, t.text);
    if (given) out.push(...sourceTokens(flatten(given), stmts, helper, depth + 1));
  });
  return out;
}

/** Path literals among the tokens: single strings, and os.path.join's trailing string arguments joined. */
function pathLiterals(tokens: readonly PyToken[]): string[] {
  const joined = new Set<PyToken>();
  const out: string[] = [];
  for (const call of callsOf(tokens, /^join$/)) {
    const tail: string[] = [];
    for (const a of [...call.args].reverse()) {
      if (a.tokens.length !== 1 || a.tokens[0]!.kind !== "string") break;
      tail.unshift(a.tokens[0]!.text);
      joined.add(a.tokens[0]!);
    }
    if (tail.length > 0) out.push(tail.join("/"));
  }
  for (const t of tokens) if (t.kind === "string" && !joined.has(t)) out.push(t.text);
  // f"{this_dir}/kernel.cu": the part after the folder computed at run time.
  return out
    .map((p) => p.replace(/^(?:\{[^}]*\}[\\/]?)+/, ""))
    .filter((p) => SOURCE.test(p) && !/[{}\n]/.test(p));
}

const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/** The files a glob pattern (`*` within a name, `**` for any folders) matches under `dir` (at most 256). */
function expandGlob(dir: string, pattern: string): string[] {
  let here = [dir];
  for (const part of pattern.split(/[\\/]+/).filter((p) => p !== "" && p !== ".")) {
    if (part === "**") {
      const all = [...here];
      for (let i = 0; i < all.length && all.length < 256; i++)
        for (const e of readdirSync(all[i]!, { withFileTypes: true }))
          if (e.isDirectory()) all.push(join(all[i]!, e.name));
      here = all;
      continue;
    }
    const re = new RegExp(
      `^${part
        .replace(/[.+^$()|[\]\\]/g, "\\$&")
        .replace(/\*/g, ".*")
        .replace(/\?/g, ".")}$`,
    );
    here = here.flatMap((d) =>
      part.includes("*") || part.includes("?")
        ? isDir(d)
          ? readdirSync(d)
              .filter((n) => re.test(n))
              .map((n) => join(d, n))
          : []
        : [join(d, part)],
    );
  }
  return here.slice(0, 256);
}

/** A script that calls cpp_extension.load or load_inline: one unit per call, with the sources it names. */
export function readTorchLoad(file: string, text: string, notes: string[]): BuildUnit[] {
  if (!/cpp_extension/.test(text) || !/\bload(?:_inline)?\s*\(/.test(text)) return [];
  const stmts = pythonStatements(text);
  const tokens = flatten(stmts);
  const calls = callsOf(tokens, /^(?:load|load_inline)$/).filter(
    (c) => tokens[c.at - 1]?.text !== "." || tokens[c.at - 2]?.text === "cpp_extension",
  );
  if (calls.length === 0) return [];
  const flags = scriptBuild(file, stmts, true, notes);
  const helper = scriptHelpers(file, stmts);
  const dir = resolve(file, "..");
  // The include paths of every call and the script's -I flags, for each of its sources.
  const includeDirs = pythonIncludeDirs(file, stmts, /^(?:load|load_inline)$/, "extra_include_paths");
  return calls.map((c) => {
    const given = sourceArgs(tokens[c.at]!.text, c.args);
    const paths = pathLiterals(sourceTokens(given, stmts, helper));
    const sources = paths.flatMap((p) => (/[*?]/.test(p) ? expandGlob(dir, p) : [resolve(dir, p)]));
    return { ...flags, sources: [...new Set(sources)], ...(includeDirs.length > 0 ? { includeDirs } : {}) };
  });
}
