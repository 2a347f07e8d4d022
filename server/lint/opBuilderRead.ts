// DeepSpeed-style op builders: a project's op_builder/*.py classes (subclasses of its CUDAOpBuilder) each
// list their sources in `def sources(self): return [...]`, relative to the project root, and their nvcc
// flags in `def nvcc_args(self)`, which torch.utils.cpp_extension's CUDAExtension then compiles with. A
// class whose sources() returns a list of literals builds those files: PyTorch's nvcc flags, then its
// nvcc_args() as setupPyRead runs a script (a HIP branch skipped), its own or the nearest base class's (in
// its file or op_builder/builder.py), with `self.method()` and `super().method()` read where called. Not
// seen: sources computed at run time (glob, a list built by a loop), flags the base's builder() adds.
import { dirname, join, resolve } from "node:path";
import type { BuildUnit } from "./buildFlags";
import { pythonStatements, type PyStatement } from "./pythonBlocks";
import { moduleStatements, type Helper, type HelperLookup } from "./pythonHelpers";
import { scriptBuild } from "./setupPyRead";

interface PyClass {
  name: string;
  bases: string[];
  methods: Map<string, PyStatement[]>;
}

function classesOf(stmts: readonly PyStatement[]): PyClass[] {
  return stmts
    .filter((s) => s.head === "class")
    .map((s) => {
      const [name, ...rest] = s.tokens.map((t) => t.text);
      const bases = rest.filter((t) => /^\w+$/.test(t));
      const methods = new Map<string, PyStatement[]>();
      for (const m of s.body ?? [])
        if (m.head === "def" && m.tokens[0]) methods.set(m.tokens[0].text, m.body ?? []);
      return { name: name ?? "", bases, methods };
    });
}

/** The files a `return [...]` of string literals names, or undefined when the list is anything else. */
function literalSources(body: readonly PyStatement[]): string[] | undefined {
  const ret = body.find((s) => !s.head && s.tokens[0]?.text === "return");
  const rest = ret?.tokens.slice(1) ?? [];
  if (rest[0]?.text !== "[" || !rest.every((t) => t.kind === "string" || "[],".includes(t.text)))
    return undefined;
  return rest.filter((t) => t.kind === "string").map((t) => t.text);
}

/** A method as the class sees it: its own, else the nearest base's (at most 8 classes up). */
function methodOf(
  cls: PyClass,
  name: string,
  classes: readonly PyClass[],
  depth = 0,
): PyStatement[] | undefined {
  const own = cls.methods.get(name);
  if (own || depth > 8) return own;
  for (const b of cls.bases) {
    const base = classes.find((c) => c.name === b);
    const found = base && methodOf(base, name, classes, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** `self.m()` and `super().m()` in the class's methods, resolved as Python would (once per call site). */
function methodLookup(cls: PyClass, classes: readonly PyClass[]): HelperLookup {
  return (name, qualifier): Helper | undefined => {
    if (!qualifier) return undefined;
    const bases = classes.filter((c) => cls.bases.includes(c.name));
    const from = qualifier === "self" ? [cls] : bases;
    for (const c of from) {
      const body = methodOf(c, name, classes);
      if (body) return { stmts: body };
    }
    return undefined;
  };
}

/** op_builder/NAME.py: one unit per op builder class whose sources() is a list of literals. */
export function readOpBuilder(file: string, text: string, notes: string[]): BuildUnit[] {
  if (!/\bdef\s+sources\b/.test(text)) return [];
  const root = dirname(dirname(file));
  const own = classesOf(pythonStatements(text));
  let shared: PyClass[] = [];
  try {
    shared = classesOf(moduleStatements(join(dirname(file), "builder.py")));
  } catch {
    // No builder.py: the classes of this file only.
  }
  const classes = [...own, ...shared];
  return own.flatMap((cls): BuildUnit[] => {
    const listed = literalSources(cls.methods.get("sources") ?? []);
    const nvcc = methodOf(cls, "nvcc_args", classes);
    if (!listed || listed.length === 0) return [];
    const flags = scriptBuild(file, nvcc ?? [], true, notes, methodLookup(cls, classes));
    return [{ ...flags, sources: listed.map((s) => resolve(root, s)) }];
  });
}
