// Hover: the CUDA doc for the word under the cursor, unless the cursor is in a comment or string.
import type { Tree } from "web-tree-sitter";
import type { Span } from "../rules/rule";
import { CUDA_DOCS, CUDA_DOC_ALIASES, type CudaDoc } from "./cudaDocs";

export function lookupCudaDoc(word: string): { name: string; doc: CudaDoc } | undefined {
  const name = Object.hasOwn(CUDA_DOCS, word)
    ? word
    : Object.hasOwn(CUDA_DOC_ALIASES, word)
      ? CUDA_DOC_ALIASES[word]
      : undefined;
  const doc = name ? CUDA_DOCS[name] : undefined;
  return name && doc ? { name, doc } : undefined;
}

export function renderCudaDoc(word: string, name: string, doc: CudaDoc): string {
  const seeAlso = word === name ? "" : ` (see \`${name}\`)`;
  return [
    "```cuda",
    doc.signature,
    "```",
    `*${doc.kind}*${seeAlso}: ${doc.meaning}`,
    "",
    `**Availability:** ${doc.availability}`,
    "",
    `**Pitfall:** ${doc.pitfall}`,
  ].join("\n");
}

const NO_HOVER = new Set([
  "comment",
  "string_literal",
  "string_content",
  "char_literal",
  "raw_string_literal",
  "system_lib_string",
]);

export function hoverAt(
  tree: Tree | undefined,
  text: string,
  line: number,
  character: number,
): { markdown: string; span: Span } | undefined {
  const lineText = lineAt(text, line);
  if (lineText === undefined) return undefined;
  let start = Math.min(character, lineText.length);
  let end = start;
  while (start > 0 && /\w/.test(lineText[start - 1]!)) start--;
  while (end < lineText.length && /\w/.test(lineText[end]!)) end++;
  if (start === end) return undefined;
  const word = lineText.slice(start, end);
  const hit = lookupCudaDoc(word);
  if (!hit) return undefined;
  if (tree) {
    for (
      let n: ReturnType<Tree["rootNode"]["descendantForPosition"]> = tree.rootNode.descendantForPosition({
        row: line,
        column: start,
      });
      n;
      n = n.parent
    )
      if (NO_HOVER.has(n.type)) return undefined;
  }
  return {
    markdown: renderCudaDoc(word, hit.name, hit.doc),
    span: { startLine: line, startColumn: start, endLine: line, endColumn: end },
  };
}

function lineAt(text: string, line: number): string | undefined {
  let from = 0;
  for (let i = 0; i < line; i++) {
    const nl = text.indexOf("\n", from);
    if (nl === -1) return undefined;
    from = nl + 1;
  }
  const nl = text.indexOf("\n", from);
  return text.slice(from, nl === -1 ? text.length : nl).replace(/\r$/, "");
}
