// The parsers under fuzz, each with a real input, a flat "facts" view of its result (every number
// it returns, under a key that names what the number is) and, for each fact, the lines of the
// input it was read from. For CSV formats the provenance follows from the format (the record's
// line, its header, the units row); for the others it is measured by ablation: a line a fact
// depends on is one whose digits, changed, change that fact. One file per family of targets.
import { ncuDetailsTarget, ncuRawTarget, ncuSourceTarget } from "./ncuTargets";
import { nsysTarget } from "./nsysTarget";
import type { Target } from "./target";
import { demangleTarget, nvccTarget, ptxasTarget, smiTarget } from "./textTargets";

export type { FactValue, Facts, StructuredMutation, Target } from "./target";
export {
  demangleTarget,
  ncuDetailsTarget,
  ncuRawTarget,
  ncuSourceTarget,
  nsysTarget,
  nvccTarget,
  ptxasTarget,
  smiTarget,
};

/** Every target, built from the real fixtures. */
export async function allTargets(): Promise<Target[]> {
  const nvccFiles = [
    "header_type_error.sm_90.txt",
    "missing_include.sm_90.txt",
    "overload_error.sm_90.txt",
    "syntax_error.sm_90.txt",
    "too_much_shared.sm_90.txt",
    "warnings.sm_90.txt",
  ];
  return [
    await ncuDetailsTarget(),
    await ncuRawTarget(),
    await ncuSourceTarget(),
    await nsysTarget("nsys-stats-cuda_gpu_sum.txt"),
    await nsysTarget("nsys-stats-old-gpukernsum.txt"),
    await smiTarget(),
    await ptxasTarget("test/fixtures/compiler/ptxas-v-kernels-multi.txt"),
    await ptxasTarget("test/fixtures/compiler/ptxas-v-kernels-sm_75.txt"),
    await ptxasTarget("test/fixtures/compiler/ptxas-v-rmsnorm-sm_90.txt"),
    await demangleTarget(),
    ...(await Promise.all(nvccFiles.map((f) => nvccTarget(`test/fixtures/compiler/broken/${f}`)))),
  ];
}
