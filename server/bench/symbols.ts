// Which cubin symbol is a kernel instance: demangle ptxas's entry names and match the qualified name
// and template arguments. The user's file may instantiate the same template for other types itself.
import { demangle } from "../compiler/demangle";
import type { KernelInstance } from "./harness";

export class SymbolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SymbolError";
  }
}

/** Splits `a, b<c, d>, e` at top-level commas. */
function splitArgs(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (const c of s) {
    if (c === "<" || c === "(") depth++;
    if (c === ">" || c === ")") depth--;
    if (c === "," && depth === 0) {
      out.push(cur.trim());
      cur = "";
    } else cur += c;
  }
  if (cur.trim() !== "") out.push(cur.trim());
  return out;
}

const TYPE_ALIASES: Record<string, string> = {
  half: "__half",
  nv_bfloat16: "__nv_bfloat16",
  half2: "__half2",
  nv_bfloat162: "__nv_bfloat162",
  unsigned: "unsignedint",
  signed: "int",
  signedint: "int",
  int32_t: "int",
  uint32_t: "unsignedint",
  int64_t: "long",
  uint64_t: "unsignedlong",
  size_t: "unsignedlong",
  int8_t: "signedchar",
  uint8_t: "unsignedchar",
  int16_t: "short",
  uint16_t: "unsignedshort",
  longint: "long",
  longlongint: "longlong",
};

/** One template argument in a comparable form: integers by value, types without spaces or aliases. */
export function normalizeTemplateArg(arg: string): string {
  let a = arg.trim().replace(/^\([^()]*\)\s*(?=-?\d)/, ""); // the demangler's "(char)8"
  const int = /^(-?)(0[xX][0-9a-fA-F]+|\d+)[uUlL]*$/.exec(a);
  if (int) return (int[1] === "-" ? -1n : 1n) * BigInt(int[2]!) + "";
  a = a.replace(/\s+/g, "");
  if (a.startsWith("::")) a = a.slice(2);
  return TYPE_ALIASES[a] ?? a;
}

function splitTemplate(name: string): { base: string; args: string[] } {
  const lt = name.indexOf("<");
  if (lt < 0 || !name.endsWith(">")) return { base: name, args: [] };
  return { base: name.slice(0, lt), args: splitArgs(name.slice(lt + 1, -1)) };
}

/** The entry symbol of `inst` among `symbols` (ptxas entry names); throws SymbolError when none or many. */
export function findSymbol(inst: KernelInstance, symbols: readonly string[]): string {
  const k = inst.kernel;
  const qualified = [...k.namespaces, k.name].join("::");
  if (k.externC && symbols.includes(k.name)) return k.name;
  const candidates = symbols
    .map((symbol) => ({ symbol, d: demangle(symbol) }))
    .filter((c) => c.d !== undefined && splitTemplate(c.d.name).base === qualified)
    .map((c) => ({ symbol: c.symbol, ...splitTemplate(c.d!.name) }));
  const want = inst.templateArgs.map(normalizeTemplateArg);
  const matching = candidates.filter(
    (c) => c.args.length === want.length && c.args.every((a, i) => normalizeTemplateArg(a) === want[i]),
  );
  if (matching.length === 1) return matching[0]!.symbol;
  // A plain kernel has one candidate; anything else must be told apart by its template arguments.
  if (matching.length === 0 && candidates.length === 1 && want.length === 0) return candidates[0]!.symbol;
  const shown = `${qualified}${want.length ? `<${inst.templateArgs.join(", ")}>` : ""}`;
  if (matching.length > 1)
    throw new SymbolError(
      `several kernels match ${shown} (overloads?): ${matching.map((m) => m.symbol).join(", ")}`,
    );
  throw new SymbolError(
    candidates.length === 0
      ? `${shown} is not among the compiled kernels (${symbols.length ? symbols.join(", ") : "none"})`
      : `${shown} is not among the compiled instances of ${qualified}: ${candidates
          .map((c) => `${c.base}<${c.args.join(", ")}>`)
          .join(", ")}`,
  );
}
