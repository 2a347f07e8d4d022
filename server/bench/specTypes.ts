// What a `// @bench` spec says, as parsed (benchSpec.ts) and before anything is evaluated: expressions
// stay trees and every item keeps its span, so checks and plans can point at the exact text.
import type { DType, Init, TimingOptions } from "../../native/runner/protocol";
import type { Span } from "../rules/rule";
import type { Expr } from "./expressions";
import type { SpecError } from "./specLexer";

export interface VarDef {
  name: string;
  span: Span;
  /** A sweep: one run per value (cartesian product with the other sweeps). */
  values?: Expr[];
  /** A derived or constant variable. */
  expr?: Expr;
}

export interface Dim3Spec {
  dims: Expr[];
  span: Span;
}

export interface InitSpec {
  init: Init;
  span: Span;
}

export interface ArgSpec {
  name: string;
  nameSpan: Span;
  dtype: DType;
  dtypeSpan: Span;
  /** The whole line after `@bench`. */
  span: Span;
  kind: "buffer" | "scalar";
  count?: Expr;
  init?: InitSpec;
  output?: { atol: number; rtol: number; span: Span };
  value?: Expr;
}

export interface TemplateArgSpec {
  name: string;
  value: string;
  span: Span;
}

export interface BenchSpec {
  /** The kernel the spec sits above. */
  kernel: string;
  /** Span of the first `@bench` marker: where "missing X" errors point. */
  anchor: Span;
  vars: VarDef[];
  grid?: Dim3Spec;
  block?: Dim3Spec;
  smem?: Expr;
  args: ArgSpec[];
  template: TemplateArgSpec[];
  bytes?: Expr;
  flops?: Expr;
  /** `templateArgs`: positional C++ template arguments written as `baseline name<a, b>`. */
  /** grid/block/smem: the baseline's own launch shape (default: the kernel's). */
  baseline?: {
    name: string;
    span: Span;
    templateArgs?: string[];
    grid?: Dim3Spec;
    block?: Dim3Spec;
    smem?: Expr;
  };
  timing: Partial<TimingOptions>;
  /** `torch EXPR`: a PyTorch baseline, Python over the arguments (specTorch.ts). */
  torch?: { expr: string; span: Span; lineSpan: Span };
  /** `torch.compile`: where it is written; also time the compiled expression. */
  torchCompile?: Span;
}

export interface ParsedSpec {
  spec: BenchSpec;
  errors: SpecError[];
}
