// Hover: the CUDA documentation for the word under the cursor (server/hover decides what it is).
import type { Hover } from "vscode-languageserver/node";
import { hoverAt } from "../hover/hover";
import { normalizeLineEnds } from "../lint/lineEnds";
import type { ServerContext } from "./context";
import { toRange } from "./convert";

export function register(ctx: ServerContext): void {
  ctx.capabilities.hoverProvider = true;
  ctx.connection.onHover(
    (p) =>
      ctx.refusal() ??
      ctx.guardAsync<Hover | null>("hover", null, async () => {
        const entry = await ctx.linter.flush(p.textDocument.uri);
        if (!entry) return null;
        const tree = entry.lint?.syntaxTree();
        ctx.linter.keepTree(p.textDocument.uri, entry);
        const hit = hoverAt(
          typeof tree === "object" ? tree : undefined,
          normalizeLineEnds(entry.doc.getText()),
          p.position.line,
          p.position.character,
        );
        return hit ? { contents: { kind: "markdown", value: hit.markdown }, range: toRange(hit.span) } : null;
      }),
  );
}
