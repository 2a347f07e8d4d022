// A small Itanium C++ demangler for the names ptxas prints: kernels with namespaces, templates
// (types and integer literals), pointers/references with cv-qualifiers, substitutions and template
// parameters. npm has no maintained pure-JS Itanium demangler and cu++filt is not installed on
// editor machines. Anything it does not understand (lambdas, expressions in template arguments)
// makes it give up and return the mangled name unchanged: a raw name beats a wrong one.

const BUILTIN: Record<string, string> = {
  v: "void",
  w: "wchar_t",
  b: "bool",
  c: "char",
  a: "signed char",
  h: "unsigned char",
  s: "short",
  t: "unsigned short",
  i: "int",
  j: "unsigned int",
  l: "long",
  m: "unsigned long",
  x: "long long",
  y: "unsigned long long",
  n: "__int128",
  o: "unsigned __int128",
  f: "float",
  d: "double",
  e: "long double",
  g: "__float128",
  z: "...",
};
const BUILTIN_D: Record<string, string> = {
  h: "half",
  n: "decltype(nullptr)",
  i: "char32_t",
  s: "char16_t",
  u: "char8_t",
  a: "auto",
};
const STD_ABBREV: Record<string, string> = {
  t: "std",
  a: "std::allocator",
  b: "std::basic_string",
  s: "std::string",
  i: "std::istream",
  o: "std::ostream",
  d: "std::iostream",
};

class Fail extends Error {}

// peek() gives "" at the end of the input, and "rVK".includes("") is true: a symbol cut after a
// qualifier would loop forever growing the name. Found by the parser fuzz.
const isCvQualifier = (c: string): boolean => c !== "" && "rVK".includes(c);

class Parser {
  private pos = 0;
  private subs: string[] = [];
  private templateArgs: string[] = [];

  constructor(private readonly s: string) {}

  private peek(n = 0): string {
    return this.s[this.pos + n] ?? "";
  }
  private take(prefix: string): boolean {
    if (this.s.startsWith(prefix, this.pos)) {
      this.pos += prefix.length;
      return true;
    }
    return false;
  }
  private expect(prefix: string): void {
    if (!this.take(prefix)) throw new Fail();
  }
  private number(): number {
    const m = /^n?\d+/.exec(this.s.slice(this.pos));
    if (!m) throw new Fail();
    this.pos += m[0].length;
    return m[0].startsWith("n") ? -Number(m[0].slice(1)) : Number(m[0]);
  }

  /** <mangled-name> ::= _Z <encoding>: the name and its parameter types. */
  parse(): { name: string; params: string[] } {
    this.expect("_Z");
    const { text: name, isTemplate } = this.name();
    const params: string[] = [];
    if (this.pos < this.s.length) {
      if (isTemplate) this.type(); // template functions encode their return type first
      while (this.pos < this.s.length && this.peek() !== ".") params.push(this.type());
    }
    if (params.length === 1 && params[0] === "void") params.length = 0;
    return { name, params };
  }

  private name(): { text: string; isTemplate: boolean } {
    if (this.peek() === "N") return this.nestedName();
    if (this.peek() === "Z") throw new Fail(); // local names: rare for kernels
    let prefix: string;
    if (this.peek() === "S" && this.peek(1) === "t") {
      this.pos += 2;
      prefix = `std::${this.unqualifiedName()}`;
    } else if (this.peek() === "S") {
      prefix = this.substitution();
    } else {
      prefix = this.unqualifiedName();
    }
    if (this.peek() === "I") {
      this.subs.push(prefix);
      const args = this.templateArgsList();
      return { text: prefix + args, isTemplate: true };
    }
    return { text: prefix, isTemplate: false };
  }

  private nestedName(): { text: string; isTemplate: boolean } {
    this.expect("N");
    while (isCvQualifier(this.peek())) this.pos++; // cv-qualifiers of member functions
    let text = "";
    let isTemplate = false;
    while (!this.take("E")) {
      if (this.peek() === "I") {
        if (!text) throw new Fail();
        text += this.templateArgsList();
        isTemplate = true;
      } else if (this.peek() === "S" && this.peek(1) === "t") {
        this.pos += 2;
        text = "std";
        continue;
      } else if (this.peek() === "S") {
        text = this.substitution();
        isTemplate = false;
        continue;
      } else if (this.peek() === "T") {
        text = this.templateParam();
        isTemplate = false;
      } else {
        const part = this.unqualifiedName();
        text = text ? `${text}::${part}` : part;
        isTemplate = false;
      }
      if (this.peek() !== "E") this.subs.push(text);
    }
    return { text, isTemplate };
  }

  private unqualifiedName(): string {
    if (this.peek() === "L") this.pos++; // internal linkage marker in some manglings
    const len = this.number();
    const id = this.s.slice(this.pos, this.pos + len);
    if (id.length !== len) throw new Fail();
    this.pos += len;
    return id.startsWith("_GLOBAL__N") ? "(anonymous namespace)" : id;
  }

  private substitution(): string {
    this.expect("S");
    const c = this.peek();
    if ("absiod".includes(c) && c !== "") {
      this.pos++;
      return STD_ABBREV[c] ?? "std";
    }
    let index = 0;
    if (this.peek() !== "_") {
      const m = /^[0-9A-Z]+/.exec(this.s.slice(this.pos));
      if (!m) throw new Fail();
      this.pos += m[0].length;
      index = parseInt(m[0], 36) + 1;
    }
    this.expect("_");
    const sub = this.subs[index];
    if (sub === undefined) throw new Fail();
    return sub;
  }

  private templateParam(): string {
    this.expect("T");
    let index = 0;
    if (this.peek() !== "_") index = this.number() + 1;
    this.expect("_");
    const arg = this.templateArgs[index];
    if (arg === undefined) throw new Fail();
    return arg;
  }

  private templateArgsList(): string {
    this.expect("I");
    const args: string[] = [];
    while (!this.take("E")) args.push(this.templateArg());
    this.templateArgs = args;
    const joined = args.join(", ");
    return `<${joined}${joined.endsWith(">") ? " " : ""}>`;
  }

  private templateArg(): string {
    if (this.peek() === "L") return this.literal();
    if (this.peek() === "X") throw new Fail(); // expressions
    if (this.take("J")) {
      const pack: string[] = [];
      while (!this.take("E")) pack.push(this.templateArg());
      return pack.join(", ");
    }
    return this.type();
  }

  private literal(): string {
    this.expect("L");
    if (this.take("_Z")) {
      const { text } = this.name();
      this.expect("E");
      return `&${text}`;
    }
    const type = this.type();
    const m = /^n?[0-9a-f]*/.exec(this.s.slice(this.pos));
    const raw = m ? m[0] : "";
    this.pos += raw.length;
    this.expect("E");
    const value = raw.startsWith("n") ? `-${raw.slice(1)}` : raw;
    if (type === "bool") return value === "0" ? "false" : "true";
    if (type === "int") return value;
    if (type === "unsigned int") return `${value}u`;
    if (type === "long") return `${value}l`;
    if (type === "unsigned long") return `${value}ul`;
    if (type === "long long") return `${value}ll`;
    if (type === "unsigned long long") return `${value}ull`;
    if (
      type === "char" ||
      type === "signed char" ||
      type === "unsigned char" ||
      type === "short" ||
      type === "unsigned short"
    )
      return `(${type})${value}`;
    if (/^[a-zA-Z_][\w:]*$/.test(type)) return `(${type})${value}`; // enums
    throw new Fail();
  }

  type(): string {
    const c = this.peek();
    const simple = BUILTIN[c];
    if (simple !== undefined) {
      this.pos++;
      return simple;
    }
    if (c === "D" && BUILTIN_D[this.peek(1)] !== undefined) {
      const t = BUILTIN_D[this.peek(1)]!;
      this.pos += 2;
      return t;
    }
    let result: string;
    if (isCvQualifier(c)) {
      let quals = "";
      while (isCvQualifier(this.peek())) {
        const q = this.s[this.pos++];
        quals += q === "K" ? " const" : q === "V" ? " volatile" : " __restrict__";
      }
      const inner = this.type();
      // "float const" reads as c++filt writes it; restrict/volatile after const order is kept simple.
      result = `${inner}${quals}`;
    } else if (c === "P" || c === "R" || c === "O") {
      this.pos++;
      const inner = this.type();
      const op = c === "P" ? "*" : c === "R" ? "&" : "&&";
      // A pointer or reference to an array reads "int const (&) [4]".
      const array = /^(.*) (\[\d*\])$/.exec(inner);
      result = array ? `${array[1]} (${op}) ${array[2]}` : `${inner}${op}`;
    } else if (c === "A") {
      this.pos++;
      const n = this.peek() === "_" ? "" : String(this.number());
      this.expect("_");
      result = `${this.type()} [${n}]`;
    } else if (c === "T") {
      result = this.templateParam();
      this.subs.push(result);
      if (this.peek() === "I") {
        result += this.templateArgsList();
        this.subs.push(result);
      }
      return result;
    } else if (c === "S" && this.peek(1) !== "t") {
      result = this.substitution();
      if (this.peek() !== "I") return result;
      result += this.templateArgsList();
    } else if (c === "N" || /[0-9]/.test(c) || (c === "S" && this.peek(1) === "t")) {
      // For a template-id, name() pushed the template name; the whole id joins the candidates below.
      result = this.name().text;
    } else {
      throw new Fail();
    }
    this.subs.push(result);
    return result;
  }
}

export interface Demangled {
  /** e.g. "sgemm_tiled<16>" */
  name: string;
  /** e.g. ["float const*", "float const*", "float*", "int"] */
  params: string[];
  /** e.g. "sgemm_tiled<16>(float const*, float const*, float*, int)" */
  signature: string;
}

/** Demangles an Itanium C++ name; undefined when it is not one (C names, `extern "C"` kernels) or too unusual. */
export function demangle(mangled: string): Demangled | undefined {
  if (!mangled.startsWith("_Z")) return undefined;
  try {
    const { name, params } = new Parser(mangled).parse();
    return { name, params, signature: `${name}(${params.join(", ")})` };
  } catch (err) {
    if (err instanceof Fail) return undefined;
    throw err;
  }
}

/** The name to show for a kernel: its demangled name with template arguments, or the symbol itself. */
export function kernelDisplayName(symbol: string): string {
  return demangle(symbol)?.name ?? symbol;
}
