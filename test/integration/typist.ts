// Random edits as an editor sends them under a fast typist: single-range LSP changes of whole code
// points, and undos. An undo puts back what the last edit not yet undone replaced, and
// comes a little more often than an edit, so thousands of edits leave a kernel file that still has its
// findings (with a few edits outstanding, often broken code) rather than noise.
import { TextDocument } from "vscode-languageserver-textdocument";
import type { TextDocumentContentChangeEvent } from "vscode-languageserver-protocol/node";
import type { Rng } from "../unit/fuzz/mutate";

/** What is typed or pasted: CUDA that changes findings, and tokens that break the syntax. */
const SNIPPETS = [
  "__shfl_down(v, 1)",
  "<<<1, 100>>>",
  "<<<grid, 2048>>>",
  "__syncthreads();",
  "__half h = a + b;",
  "if (threadIdx.x < 16) {",
  '"unterminated',
  "// x",
  "\n",
  "}",
  "{",
  "(",
  ")",
  ";",
  " ",
  "x",
  "😀",
];

export type RangeChange = Extract<TextDocumentContentChangeEvent, { range: unknown }>;

export class Typist {
  private readonly undos: RangeChange[] = [];

  constructor(private readonly rng: Rng) {}

  /** The next change of `doc` (not applied). */
  next(doc: TextDocument): RangeChange {
    if (this.undos.length > 0 && this.rng.int(100) < 55) return this.undos.pop()!;
    const text = doc.getText();
    let start = this.rng.int(text.length + 1);
    let end = Math.min(text.length, start + this.rng.int(12));
    // Whole code points, as editors send them.
    if (/[\uDC00-\uDFFF]/.test(text[start] ?? "")) start--;
    if (/[\uDC00-\uDFFF]/.test(text[end] ?? "")) end++;
    end = Math.max(start, end);
    const newText = this.rng.int(3) === 0 ? "" : this.rng.pick(SNIPPETS);
    const change = { range: { start: doc.positionAt(start), end: doc.positionAt(end) }, text: newText };
    // The undo's range is in the text after the change. TextDocument.update changes the document it is
    // given: that text is made in a copy.
    const after = TextDocument.update(TextDocument.create(doc.uri, "", 0, text), [change], 1);
    this.undos.push({
      range: { start: after.positionAt(start), end: after.positionAt(start + newText.length) },
      text: text.slice(start, end),
    });
    return change;
  }
}
