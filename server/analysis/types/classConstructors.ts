// The constructors a function's code can call, by class name: the file's own (its whole text, read once
// per lint run) and its project headers' (declEnv.ts). The uniformity analysis asks it for the classes of
// objects built from thread-dependent arguments (uniformityCalls.ts constructedDeps). Asking for a class
// records `uses:NAME`, so an edit that writes NAME anywhere (its constructor, say) runs the asking rule
// over the file again, and the headers' part records the whole-file context declEnv reads.
import type { LintContext } from "../../rules/rule";
import { usesOf } from "../../lint/dependencies";
import { ownFacts } from "../preprocessor/projectHeaders";
import { FileIndex } from "../source/fileIndex";
import type { Constructor } from "./constructors";
import { declEnv } from "./declEnv";

export function classConstructors(
  ctx: Pick<LintContext, "tree" | "text" | "fileName" | "options">,
): (name: string) => readonly Constructor[] | undefined {
  const idx = FileIndex.of(ctx);
  return (name) => {
    idx.reads(usesOf(name));
    const own = ownFacts(idx).constructors.get(name) ?? [];
    const headers = declEnv(ctx).headerConstructors.get(name) ?? [];
    return own.length || headers.length ? [...own, ...headers] : undefined;
  };
}
