// What a setup.py gives CUDA sources: the architectures (TORCH_CUDA_ARCH_LIST it sets, or its own
// -gencode/-arch flags, which PyTorch's cpp_extension then takes instead of the list) and the -D/-U flags
// in its string literals, with PyTorch's own when it builds a CUDAExtension. Its if/elif/else chains are
// exclusive: a branch a CUDA build does not take (`if IS_ROCM:`) is skipped, and where the branch cannot be
// told, a macro keeps only the state every branch agrees on. A flag built at run time (an f-string's
// {…}, .format, `+ value`) leaves its macro unknown, and the -D flags of a CMake configure step
// (cmake_args) are CMake's variables, not macros. A conditional expression (`[…] if IS_HIP else […]`) is
// read like an if/else. Functions the project's helper modules define are read where they are called
// (pythonHelpers); one imported from elsewhere into a flags statement leaves PyTorch's switches unknown.
// Its extensions' include directories (`include_dirs`, `-I` flags) are read as pythonPaths.ts says.
// PyTorch's switches the script removes from cpp_extension's COMMON_NVCC_FLAGS are not set (pythonFlagRemoval).
// Not seen: values read from the environment; a function's flags apply where it is defined, not called.
import {
  archTokens,
  archsFromFlags,
  copyMacros,
  macroFlags,
  mergeExclusive,
  PYTORCH_NVCC_DEFINES,
  switchBackend,
  valueBackend,
  type BuildUnit,
  type MacroState,
} from "./buildFlags";
import type { PyToken } from "./buildSyntax";
import { pythonStatements, type PyStatement } from "./pythonBlocks";
import { conditionals } from "./pythonExprs";
import { scriptHelpers, type HelperLookup } from "./pythonHelpers";
import { removedNvccFlags } from "./pythonFlagRemoval";
import { pythonIncludeDirs } from "./pythonPaths";

interface Found {
  /** TORCH_CUDA_ARCH_LIST values it sets. */
  archLists: string[];
  /** Every string literal of the branches a CUDA build may take: -gencode and -arch flags among them. */
  literals: string[];
  /** CMAKE_CUDA_ARCHITECTURES it passes to a CMake step. */
  cmakeArchs: string[];
}

/** The dotted name a condition tests (`torch.version.hip`, `is_rocm()`), and how: as is, or negated. */
function testedName(tokens: readonly PyToken[]): { name: string; rest: string } | undefined {
  const parts: string[] = [];
  let i = 0;
  for (; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind === "name" && i % 2 === 0) parts.push(t.text);
    else if (!(t.text === "." && i % 2 === 1)) break;
  }
  if (parts.length === 0) return undefined;
  let rest = tokens.slice(i).map((t) => t.text);
  if (rest[0] === "(" && rest[1] === ")") rest = rest.slice(2);
  return { name: parts.join("."), rest: rest.join(" ") };
}

/**
 * Whether a CUDA build takes `if COND:`: true for a CUDA switch (`KEEP_CUDA_BUILD`, `CUDA_HOME is not
 * None`, `BUILD_TARGET == "cuda"`), false for a HIP/ROCm one (`IS_ROCM`, `torch.version.hip`), else undefined.
 */
export function pythonCondition(cond: readonly PyToken[]): boolean | undefined {
  let tokens = cond;
  let negate = false;
  while (tokens[0]?.kind === "name" && tokens[0].text === "not") {
    negate = !negate;
    tokens = tokens.slice(1);
  }
  const tested = testedName(tokens);
  if (!tested) return undefined;
  let result: boolean | undefined;
  const last = tokens[tokens.length - 1];
  if (tested.rest === "" || tested.rest === "is not None" || tested.rest === "is None") {
    const backend = switchBackend(tested.name);
    if (backend) result = (backend === "cuda") !== (tested.rest === "is None");
  } else if (/^(?:= =|! =) \S+$/.test(tested.rest) && last?.kind === "string") {
    const backend = valueBackend(last.text);
    if (backend) result = (backend === "cuda") !== tested.rest.startsWith("!");
  }
  return result === undefined ? undefined : result !== negate;
}

/** Whether a literal's value is completed at run time: `"-DX=" + v`, `"-DX={}".format(v)`, `"-DX=%s" % v`. */
function completedAtRunTime(tokens: readonly PyToken[], i: number): boolean {
  const t = tokens[i]!;
  const next = tokens[i + 1];
  if (t.formatted && /\{/.test(t.text)) return true;
  if (next?.text === "+" || next?.text === "%") return true;
  return next?.text === "." && tokens[i + 2]?.text === "format";
}

/** How far a statement's literals count: as written, as maybe (a conditional arm not told), or not at all. */
type Reach = "yes" | "maybe" | "no";

/** Per token, whether its literal counts, by the conditional expressions (`A if IS_HIP else B`) around it. */
function reaches(tokens: readonly PyToken[]): Reach[] {
  const out: Reach[] = tokens.map(() => "yes");
  const mark = ([a, b]: [number, number], r: Reach): void => {
    for (let i = a; i < b; i++) if (out[i] !== "no") out[i] = r;
  };
  for (const c of conditionals(tokens)) {
    const taken = pythonCondition(tokens.slice(...c.cond));
    mark(c.cond, "no");
    if (taken === undefined) {
      mark(c.then, "maybe");
      mark(c.otherwise, "maybe");
    } else mark(taken ? c.otherwise : c.then, "no");
  }
  return out;
}

/** `self.name` → "self", `super().name` → "super", a bare name → undefined, another attribute → null. */
function qualifierOf(tokens: readonly PyToken[], i: number): "self" | "super" | undefined | null {
  if (tokens[i - 1]?.text !== ".") return undefined;
  const before = tokens.slice(Math.max(0, i - 4), i - 1).map((t) => t.text);
  if (before[before.length - 1] === "self") return "self";
  return before.join(" ") === "super ( )" ? "super" : null;
}

/** The imported project helpers a statement uses, run in its place; those we cannot read, noted. */
function helperCalls(tokens: readonly PyToken[], m: MacroState, found: Found, env: ScriptEnv): MacroState {
  if (tokens[0]?.text === "from" || tokens[0]?.text === "import") return m;
  let macros = m;
  const flagish = tokens.some((t) => t.kind !== "op" && /flag|nvcc|compile_args/i.test(t.text));
  tokens.forEach((t, i) => {
    if (t.kind !== "name") return;
    const qualifier = qualifierOf(tokens, i);
    if (qualifier === null) return;
    const h = env.helper(t.text, qualifier);
    if (h && "stmts" in h && env.depth < 3)
      macros = run(h.stmts, macros, found, { ...env, depth: env.depth + 1 });
    else if (h && "unread" in h && flagish) env.unread.add(h.unread);
  });
  return macros;
}

/** One simple statement: its TORCH_CUDA_ARCH_LIST, flags, or CMake arguments. */
function simpleStatement(
  tokens: readonly PyToken[],
  m: MacroState,
  found: Found,
  env: ScriptEnv,
): MacroState {
  const macros = helperCalls(tokens, m, found, env);
  const first = tokens[0];
  const cmake =
    (first?.kind === "name" && /cmake/i.test(first.text)) ||
    tokens.some((t) => t.kind === "string" && t.text === "cmake");
  const reach = reaches(tokens);
  tokens.forEach((t, i) => {
    if (t.kind !== "string" || reach[i] === "no") return;
    if (cmake) {
      const archs = /^-DCMAKE_CUDA_ARCHITECTURES(?::\w+)?=(.*)$/.exec(t.text)?.[1];
      if (archs !== undefined && !completedAtRunTime(tokens, i))
        found.cmakeArchs.push(...archs.split(/[;,\s]+/));
      return;
    }
    if (t.text === "TORCH_CUDA_ARCH_LIST") {
      // environ["TORCH_CUDA_ARCH_LIST"] = "…", or setdefault("TORCH_CUDA_ARCH_LIST", "…")
      const [a, b, c] = tokens.slice(i + 1, i + 4);
      if (a?.text === "]" && b?.text === "=" && c?.kind === "string") found.archLists.push(c.text);
      else if (a?.text === "," && b?.kind === "string") found.archLists.push(b.text);
    }
    found.literals.push(t.text);
    const unknown = reach[i] === "maybe" || completedAtRunTime(tokens, i);
    macroFlags([t.text], macros.defines, macros.undefines, unknown);
  });
  return macros;
}

/** What running a script's statements needs besides its macros: its helpers, and what could not be read. */
interface ScriptEnv {
  helper: HelperLookup;
  unread: Set<string>;
  /** How many helpers deep the statements run. */
  depth: number;
}

function run(stmts: readonly PyStatement[], macros: MacroState, found: Found, env: ScriptEnv): MacroState {
  let m = macros;
  for (let i = 0; i < stmts.length; i++) {
    const s = stmts[i]!;
    if (!s.head) m = simpleStatement(s.tokens, m, found, env);
    else if (s.head !== "if") m = run(s.body ?? [], m, found, env);
    else {
      const chain = [s];
      while (/^(?:elif|else)$/.test(stmts[i + 1]?.head ?? "")) chain.push(stmts[++i]!);
      m = runIf(chain, m, found, env);
    }
  }
  return m;
}

/** An if/elif/else chain: the branches a CUDA build may take, their macros merged. */
function runIf(chain: readonly PyStatement[], m: MacroState, found: Found, env: ScriptEnv): MacroState {
  const outcomes: MacroState[] = [];
  let certain = false;
  for (const br of chain) {
    const taken = br.head === "else" ? true : pythonCondition(br.tokens);
    if (taken === false) continue;
    outcomes.push(run(br.body ?? [], copyMacros(m), found, env));
    if (taken === true) {
      certain = true;
      break;
    }
  }
  // Not taking any branch is an outcome too, unless a branch builds the extension: without it, no source
  // is compiled (`if not SKIP_CUDA_BUILD:` around the whole build).
  if (!certain && !chain.some((br) => builds(br.body ?? []))) outcomes.push(m);
  return outcomes.length === 1 ? outcomes[0]! : mergeExclusive(outcomes);
}

/**
 * What a Python build script gives the sources it builds: PyTorch's nvcc flags when `pytorch`, then its own
 * flags and those of the project helpers it calls, in order. Flags from a helper we cannot read leave
 * PyTorch's switches unknown (a -U may undo them) and say so in `flagsUnread`.
 */
export function scriptBuild(
  file: string,
  stmts: readonly PyStatement[],
  pytorch: boolean,
  notes: string[],
  helper: HelperLookup = scriptHelpers(file, stmts),
): BuildUnit {
  const start: MacroState = {
    defines: new Map(pytorch ? PYTORCH_NVCC_DEFINES.map((d) => [d, "1"]) : []),
    undefines: new Set(),
  };
  const found: Found = { archLists: [], literals: [], cmakeArchs: [] };
  const env: ScriptEnv = { helper, unread: new Set(), depth: 0 };
  const { defines, undefines } = run(stmts, start, found, env);
  if (env.unread.size > 0) for (const d of PYTORCH_NVCC_DEFINES) if (!undefines.has(d)) defines.delete(d);
  // PyTorch's flags the script takes out of cpp_extension's COMMON_NVCC_FLAGS are not on the command line.
  if (pytorch)
    for (const flag of removedNvccFlags(stmts)) {
      const name = /^-D(\w+)$/.exec(flag)?.[1];
      if (!name || !PYTORCH_NVCC_DEFINES.includes(name)) continue;
      defines.delete(name);
      undefines.add(name);
    }
  // cpp_extension adds TORCH_CUDA_ARCH_LIST's flags to an extension whose own flags name no arch: the
  // project's targets are the flags' and, when it sets a list, the list's (for its other extensions).
  const flagArchs = archsFromFlags(found.literals.join("\n"));
  const lists = found.archLists.flatMap((l) => l.split(/[\s;,]+/));
  const listArchs = archTokens(lists, file, notes);
  const cmakeArchs = archTokens(found.cmakeArchs, file, notes);
  const archs = [...new Set([...flagArchs, ...listArchs, ...cmakeArchs])].sort((x, y) => x - y);
  const archsFrom = [
    flagArchs.length > 0 ? "its -gencode/-arch flags" : "",
    listArchs.length > 0 ? "the TORCH_CUDA_ARCH_LIST it sets" : "",
    cmakeArchs.length > 0 ? "the CMAKE_CUDA_ARCHITECTURES it passes to CMake" : "",
  ].filter((f) => f !== "");
  return {
    backend: "cuda",
    archs,
    ...(archsFrom.length > 0 ? { archsFrom: `from ${archsFrom.join(" and ")}` } : {}),
    defines,
    undefines,
    pytorch,
    ...(env.unread.size > 0 ? { flagsUnread: [...env.unread].join(", ") } : {}),
  };
}

/** setup.py: one unit for the whole project, with every extension's include directories. */
export function readSetupPy(file: string, text: string, notes: string[]): BuildUnit[] {
  const stmts = pythonStatements(text);
  const pytorch = /\b(?:CUDAExtension|cpp_extension)\b/.test(text) && hasName(stmts);
  const includeDirs = pythonIncludeDirs(file, stmts, EXTENSIONS, "include_dirs");
  return [
    { ...scriptBuild(file, stmts, pytorch, notes), ...(includeDirs.length > 0 ? { includeDirs } : {}) },
  ];
}

/** The calls that make an extension, whose `include_dirs` the compiler is given. */
const EXTENSIONS = /^(?:CUDAExtension|CppExtension|Extension)$/;

/** Whether the statements name one of `names` in code (not only in a comment or a string). */
function names(stmts: readonly PyStatement[], re: RegExp): boolean {
  return stmts.some(
    (s) => s.tokens.some((t) => t.kind === "name" && re.test(t.text)) || names(s.body ?? [], re),
  );
}

/** A PyTorch extension build: CUDAExtension or cpp_extension named in code. */
const hasName = (stmts: readonly PyStatement[]): boolean => names(stmts, /^(?:CUDAExtension|cpp_extension)$/);

/** Statements that build a CUDA extension. */
const builds = (stmts: readonly PyStatement[]): boolean => names(stmts, /^CUDAExtension$/);
