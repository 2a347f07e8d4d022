// The integer types written where a function's names are declared (parameters and locals), and which of
// them are 32- or 64-bit as written. Cannot see: types behind aliases, templates or `auto`.
import type { Node } from "web-tree-sitter";
import { isWordCode } from "../source/charCodes";
import type { FileIndex } from "../source/fileIndex";
import { declaredName } from "../source/nodes";

/** 64-bit integer types as written (a cast, a declaration): a bound of such a type passes 2^32. */
export const WIDE_TYPE =
  /\b(size_t|ssize_t|ptrdiff_t|u?int64_t|u?intptr_t|int64|uint64|long|__int64|u64|i64)\b/;
/** `numel()` / `.size()` return 64-bit counts; `100000000000LL` is a 64-bit literal. */
export const WIDE_VALUE = /\b(numel|size)\s*\(|\b\d+[uU]?[lL]{1,2}\b/;

/** 32-bit unsigned types as written. */
export const UNSIGNED_32 = /^(?:(?:const\s+)?(?:unsigned(?:\s+int)?|uint32_t|uint|u32))$/;
/** 32-bit integer types as written. */
export const NARROW_32 = /^(?:const\s+)?(?:unsigned|signed|int|unsigned\s+int|u?int32_t|uint|u32|i32)$/;

/** Where an upward walk from a name stops: no declarator holds one of these around its declared name. */
const NOT_DECLARATOR =
  /_statement$|_expression$|argument_list$|^(?:function_definition|translation_unit|initializer_list|condition_clause)$/;

/**
 * The types written where names are declared in one scope (parameters and locals). A name's is that of
 * the first declaration of the scope that declares it, found from the places its text is (the first
 * whose node is in a declaration declaring it): a search of the scope for every declaration costs more
 * than the scope's few bound names need.
 */
export class DeclaredTypes {
  /** Each name's first declaration in the scope and the type written there (none: not declared here). */
  private readonly found = new Map<string, { decl: Node; type: string | undefined } | undefined>();

  constructor(
    /** The function (or file) whose names these are. */
    readonly scope: Node,
    private readonly idx: FileIndex,
  ) {}

  /** The type written where `name` is first declared in the scope, if it is there. */
  of(name: string): string | undefined {
    return this.lookUp(name)?.type;
  }

  /** The declaration (or parameter) that first declares `name` in the scope. */
  declarationOf(name: string): Node | undefined {
    return this.lookUp(name)?.decl;
  }

  private lookUp(name: string): { decl: Node; type: string | undefined } | undefined {
    if (!this.found.has(name)) this.found.set(name, this.find(name));
    return this.found.get(name);
  }

  private find(name: string): { decl: Node; type: string | undefined } | undefined {
    const { scope, idx } = this;
    const { text } = idx;
    const end = scope.endIndex - name.length;
    for (
      let at = text.indexOf(name, scope.startIndex);
      at >= 0 && at <= end;
      at = text.indexOf(name, at + 1)
    ) {
      const to = at + name.length;
      if (isWordCode(text.charCodeAt(at - 1)) || isWordCode(text.charCodeAt(to))) continue;
      const n = scope.descendantForIndex(at, to);
      if (n?.startIndex !== at || n.endIndex !== to) continue;
      const d = declarationAround(n);
      if (!d) continue;
      // a parameter has one declarator at most (asking for all of them costs more)
      const declarators =
        d.type === "parameter_declaration"
          ? [d.childForFieldName("declarator")]
          : d.childrenForFieldName("declarator");
      if (declarators.some((x) => declaredText(x, idx) === name)) {
        const type = d.childForFieldName("type");
        return { decl: d, type: type ? idx.textOf(type) : undefined };
      }
    }
    return undefined;
  }
}

/** The name a declarator declares, as text. */
function declaredText(declarator: Node | null, idx: FileIndex): string | undefined {
  const name = declaredName(declarator);
  return name && idx.textOf(name);
}

/** The declaration or parameter whose declarator holds `n`, or undefined when `n` is not in one. */
function declarationAround(n: Node): Node | undefined {
  for (let p = n.parent; p; p = p.parent) {
    const t = p.type;
    if (t === "declaration" || t === "parameter_declaration") return p;
    if (NOT_DECLARATOR.test(t)) return undefined;
  }
  return undefined;
}
