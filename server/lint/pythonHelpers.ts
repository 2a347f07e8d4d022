// The project's own Python that a build script calls into: each name it imports from a module of the
// project (`from tools.utils import get_flags`, `from .builder import X`) resolved to the statements that
// give it (a function's body, a module-level list's assignments), so its flags are read where it is used.
// A name imported from a module the project does not hold is unread, unless the module is one that gives no
// compiler flags (the standard library, setuptools, torch). Not followed: a helper's own imports, names used
// through a module (`import tools.utils as u; u.flags()`), star imports.
import { readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { pythonStatements, type PyStatement } from "./pythonBlocks";

/** What an imported name gives: the statements to run in its place, or why it cannot be read. */
export type Helper = { stmts: PyStatement[] } | { unread: string };

/**
 * The helper a name stands for in the script (`qualifier`: "self" for `self.name`, "super" for
 * `super().name`); undefined for a name that is not a (flag-giving) import or method.
 */
export type HelperLookup = (name: string, qualifier?: "self" | "super") => Helper | undefined;

/** Modules that give no compiler flags. */
const FLAGLESS =
  /^(?:os|sys|re|glob|pathlib|subprocess|platform|shutil|sysconfig|json|typing|functools|itertools|warnings|time|math|random|argparse|setuptools|distutils|packaging|torch|numpy|pybind11|importlib|collections|dataclasses|enum|copy|io|logging|tempfile|multiprocessing|ninja|wheel|triton)$/;

interface Import {
  /** Leading dots of a relative import. */
  level: number;
  module: string;
  name: string;
}

/** `from [.]mod.sub import a, b as c` statements, anywhere in the statements: local name → import. */
function fromImports(stmts: readonly PyStatement[], out = new Map<string, Import>()): Map<string, Import> {
  for (const s of stmts) {
    if (s.body) fromImports(s.body, out);
    const t = s.tokens.map((x) => x.text);
    if (s.head || t[0] !== "from") continue;
    const at = t.indexOf("import");
    if (at < 0) continue;
    const path = t.slice(1, at).join("");
    const level = /^\.*/.exec(path)![0].length;
    const names = t.slice(at + 1).filter((x) => !"(),".includes(x));
    for (let i = 0; i < names.length; i++) {
      const alias = names[i + 1] === "as" ? names[i + 2] : undefined;
      if (names[i] !== "*")
        out.set(alias ?? names[i]!, { level, module: path.slice(level), name: names[i]! });
      if (alias) i += 2;
    }
  }
  return out;
}

const isFile = (p: string): boolean => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};
const exists = (p: string): boolean => {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
};

const moduleCache = new Map<string, { stamp: string; stmts: PyStatement[] }>();

/** A Python module's statements, parsed once until it changes on disk. */
export function moduleStatements(file: string): PyStatement[] {
  const st = statSync(file);
  const stamp = `${st.size}:${st.mtimeMs}`;
  const hit = moduleCache.get(file);
  if (hit?.stamp === stamp) return hit.stmts;
  const stmts = pythonStatements(readFileSync(file, "utf8"));
  moduleCache.set(file, { stamp, stmts });
  return stmts;
}

/** A module-level function's body, or the module-level statements that assign or extend the name. */
export function definitionOf(stmts: readonly PyStatement[], name: string): PyStatement[] | undefined {
  const def = stmts.find((s) => (s.head === "def" || s.head === "class") && s.tokens[0]?.text === name);
  if (def) return def.body ?? [];
  const uses = stmts.filter((s) => !s.head && s.tokens[0]?.kind === "name" && s.tokens[0].text === name);
  return uses.length > 0 ? uses : undefined;
}

function resolveImport(dir: string, imp: Import): Helper | undefined {
  let base = dir;
  for (let i = 1; i < imp.level; i++) base = dirname(base);
  const rel = imp.module.split(".").filter((p) => p.length > 0);
  const file = [join(base, ...rel) + ".py", join(base, ...rel, "__init__.py")].find(isFile);
  const what = `${imp.name} from ${".".repeat(imp.level)}${imp.module}`;
  if (file) {
    const stmts = definitionOf(moduleStatements(file), imp.name);
    return stmts ? { stmts } : { unread: `${what} (not a function or list the module defines)` };
  }
  const top = rel[0] ?? "";
  const inProject = imp.level > 0 || exists(join(base, top)) || exists(join(base, `${top}.py`));
  if (!inProject && FLAGLESS.test(top)) return undefined;
  return { unread: `${what} (${inProject ? "not read" : "a module outside the project"})` };
}

/** The helpers the script at `file` imports, looked up by local name. */
export function scriptHelpers(file: string, stmts: readonly PyStatement[]): HelperLookup {
  const imports = fromImports(stmts);
  const dir = dirname(file);
  const cache = new Map<string, Helper | undefined>();
  return (name, qualifier) => {
    const imp = qualifier ? undefined : imports.get(name);
    if (!imp) return undefined;
    if (!cache.has(name)) cache.set(name, resolveImport(dir, imp));
    return cache.get(name);
  };
}
