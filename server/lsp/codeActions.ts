// Code actions: each finding's quick fixes, and "Disable RULE for this line" (a suppression comment).
import { CodeActionKind, type CodeAction, type Diagnostic } from "vscode-languageserver/node";
import type { TextDocument } from "vscode-languageserver-textdocument";
import type { Finding } from "../rules/rule";
import type { ServerContext } from "./context";
import { overlaps, sameRange, toDiagnostic, toRange } from "./convert";

/** "Disable RULE for this line": a suppression comment above the finding, indented like its line. */
function suppressAction(doc: TextDocument, f: Finding, diagnostics: Diagnostic[]): CodeAction {
  const line = f.span.startLine;
  const lineText = doc.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } });
  const indent = /^[ \t]*/.exec(lineText)?.[0] ?? "";
  return {
    title: `Disable ${f.rule} for this line`,
    kind: CodeActionKind.QuickFix,
    diagnostics,
    edit: {
      changes: {
        [doc.uri]: [
          {
            range: { start: { line, character: 0 }, end: { line, character: 0 } },
            newText: `${indent}// cuda-kernel-dev-disable-next-line ${f.rule}\n`,
          },
        ],
      },
    },
  };
}

/** The finding's own fixes, each a quick fix that edits the document. */
function fixActions(uri: string, f: Finding, diagnostics: Diagnostic[]): CodeAction[] {
  return f.fixes.map((fix) => ({
    title: fix.title,
    kind: CodeActionKind.QuickFix,
    diagnostics,
    isPreferred: fix.isPreferred ?? false,
    edit: {
      changes: { [uri]: fix.edits.map((e) => ({ range: toRange(e.span), newText: e.newText })) },
    },
  }));
}

export function register(ctx: ServerContext): void {
  ctx.capabilities.codeActionProvider = { codeActionKinds: [CodeActionKind.QuickFix] };
  ctx.connection.onCodeAction(
    (p) =>
      ctx.refusal() ??
      ctx.guardAsync("codeAction", [], async () => {
        const entry = await ctx.linter.flush(p.textDocument.uri);
        if (!entry) return [];
        const actions: CodeAction[] = [];
        for (const f of entry.findings) {
          const diagnostic = toDiagnostic(f);
          if (!overlaps(diagnostic.range, p.range)) continue;
          // Answer for the diagnostics the client holds; fall back to position when it sent none.
          const held = p.context.diagnostics.find(
            (d) => d.code === f.rule && sameRange(d.range, diagnostic.range),
          );
          if (p.context.diagnostics.length > 0 && !held) continue;
          const diagnostics = [held ?? diagnostic];
          actions.push(...fixActions(p.textDocument.uri, f, diagnostics));
          if (f.rule !== "lint-skipped") actions.push(suppressAction(entry.doc, f, diagnostics));
        }
        return actions;
      }),
  );
}
