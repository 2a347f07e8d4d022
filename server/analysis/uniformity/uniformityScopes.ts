// The uniformity walk's scopes (uniformityWalk.ts): which symbol a name means at each point of the walk,
// and at a point already passed (a loop's trip count is worked out only once asked, after the walk).
import type { Control, Resolve, Sym } from "./uniformityBase";

export class Scopes {
  private readonly stack: Map<string, number>[] = [];
  /** For each open scope: the first symbol id declared in it or later. */
  private readonly firsts: number[] = [];
  /** Symbols whose scope has closed: nothing can assign them any more. */
  private readonly closed: boolean[] = [];
  /** Symbol ids in declaration order: each is the next. */
  private count = 0;
  /** For a symbol that took a name over in its own scope (a redeclaration): the symbol it hid. */
  private readonly hid: (number | undefined)[] = [];

  push(): void {
    this.stack.push(new Map());
    this.firsts.push(this.count);
  }

  /** Closes the innermost scope: its symbols, and those of the scopes in it, are closed. */
  pop(): void {
    this.stack.pop();
    for (let id = this.firsts.pop()!; id < this.count; id++) this.closed[id] = true;
  }

  /** Has symbol `id`'s scope closed (its assignments are all known)? */
  isClosed(id: number): boolean {
    return this.closed[id] === true;
  }

  /** Binds `name` in the innermost scope to symbol `id`, the next symbol. */
  declare(name: string, id: number): void {
    const top = this.stack[this.stack.length - 1]!;
    this.hid[id] = top.get(name);
    top.set(name, id);
    this.count = id + 1;
  }

  /**
   * Does a plain `name = e` to symbol `id` (`sym`), under `controls`, give the uses after it a value of
   * their own, so that what the variable held before (`x = tid` before `x = s_x`, re-read from shared
   * memory after a barrier) no longer reaches them? When every thread alive in its scope runs it: a
   * statement of that scope itself, under no condition but those around the declaration. No loop can
   * carry the old value back: one around the statement is around the scope, and declares it afresh. The
   * caller then declares the new value's symbol in this (the innermost) scope.
   */
  overwrites(name: string, id: number, sym: Sym, controls: readonly Control[]): boolean {
    return (
      sym.kind === "storage" &&
      this.stack[this.stack.length - 1]?.get(name) === id &&
      controls.every((k) => k.guarded.startIndex <= sym.at && sym.at < k.guarded.endIndex)
    );
  }

  resolve(name: string): number | undefined {
    for (let i = this.stack.length - 1; i >= 0; i--) {
      const s = this.stack[i]!.get(name);
      if (s !== undefined) return s;
    }
    return undefined;
  }

  /**
   * What `resolve` answers now, asked later: the scopes now open, without the symbols declared after this
   * point (a symbol that took a name over later gives back the one it hid).
   */
  snapshot(): Resolve {
    const open = this.stack.slice();
    const before = this.count;
    return (name) => {
      for (let i = open.length - 1; i >= 0; i--) {
        let s = open[i]!.get(name);
        while (s !== undefined && s >= before) s = this.hid[s];
        if (s !== undefined) return s;
      }
      return undefined;
    };
  }
}
