// Document symbols: the file's kernels and device functions, for the outline and breadcrumbs.
import { SymbolKind, type DocumentSymbol } from "vscode-languageserver/node";
import { cudaSymbols } from "../lint/symbols";
import type { ServerContext } from "./context";
import { toRange } from "./convert";

export function register(ctx: ServerContext): void {
  ctx.capabilities.documentSymbolProvider = true;
  ctx.connection.onDocumentSymbol(
    (p) =>
      ctx.refusal() ??
      ctx.guardAsync<DocumentSymbol[]>("documentSymbol", [], async () => {
        const entry = await ctx.linter.flush(p.textDocument.uri);
        const tree = entry?.lint?.syntaxTree();
        if (entry) ctx.linter.keepTree(p.textDocument.uri, entry);
        if (typeof tree !== "object") return [];
        return cudaSymbols(tree).map((s) => ({
          name: s.name,
          detail: s.detail,
          // Kernels get the "event" icon (a bolt): launch entry points stand out from helpers in the outline.
          kind: s.kind === "kernel" ? SymbolKind.Event : SymbolKind.Function,
          range: toRange(s.span),
          selectionRange: toRange(s.nameSpan),
        }));
      }),
  );
}
