// The PyTorch baseline lines of a spec, read as raw text (the expression is Python, not spec syntax):
//   // @bench torch F.rms_norm(inp.view(rows, cols), (cols,), weight, eps)
//   // @bench torch.compile            also time torch.compile of the same expression
import type { SpecLine } from "./kernelScan";
import { spanOf, SpecError } from "./specLexer";
import type { BenchSpec } from "./specTypes";

const TORCH_LINE = /^(\s*)torch(\.compile)?(?=\s|$)(.*)$/;

/** Reads `line` into `spec.torch` when it is a torch line; false when it is something else. */
export function parseTorchLine(line: SpecLine, spec: BenchSpec): boolean {
  const m = TORCH_LINE.exec(line.text);
  if (!m) return false;
  const start = line.column + m[1]!.length;
  const keyword = spanOf(line.line, start, start + (m[2] ? 13 : 5));
  const rest = m[3]!;
  const exprText = rest.trim();
  if (m[2]) {
    if (exprText)
      throw new SpecError("'torch.compile' takes nothing: it compiles the 'torch' expression", keyword);
    if (spec.torchCompile) throw new SpecError("'torch.compile' is given twice", keyword);
    spec.torchCompile = keyword;
    return true;
  }
  if (!exprText)
    throw new SpecError("expected a Python expression after 'torch', e.g. torch F.relu(x)", keyword);
  if (spec.torch) throw new SpecError("'torch' is given twice", keyword);
  const exprStart = line.column + line.text.length - rest.trimStart().length;
  spec.torch = {
    expr: exprText,
    span: spanOf(line.line, exprStart, exprStart + exprText.length),
    lineSpan: spanOf(line.line, start, exprStart + exprText.length),
  };
  return true;
}
