// BF16 arithmetic compiled for a pre-Ampere target the build declares (T4 is sm_75): it compiles, but
// Turing and Volta have no BF16 units, so every operation runs through float in software. The seeds'
// convention: "T4 has no BFloat16 support — must use FP16".
import type { Rule } from "./rule";
import { archOffRanges, inRanges } from "../analysis/preprocessor/archGuard";
import { FileIndex } from "../analysis/source/fileIndex";
import { bf16Arithmetic } from "../analysis/types/bf16Arithmetic";
import { declEnv } from "../analysis/types/declEnv";
import { halfDecls } from "../analysis/types/halfDecls";
import { hasFp16Version } from "../analysis/types/fp16Versions";

export const bf16EmulatedArch: Rule = {
  id: "bf16-emulated-arch",
  defaultSeverity: "warning",
  basis: "heuristic",
  archDependent: true,
  summary:
    "BF16 arithmetic in device code compiled, unguarded, for a pre-Ampere target the build declares (T4 = sm_75): it runs emulated through float there.",
  check(ctx) {
    // Only targets the project chose: kernel-builder's default list or this machine's GPU do not say the
    // kernel is meant to run on a T4.
    if (ctx.build.targets !== "declared" || ctx.build.targetsDeclared === false) return;
    const low = ctx.targets.filter((t) => t < 80);
    if (low.length === 0) return;
    const idx = FileIndex.of(ctx);
    const sites = bf16Arithmetic(idx, halfDecls(idx, declEnv(ctx)));
    if (sites.length === 0) return;
    const off = archOffRanges(idx, low, ctx.build);
    const lowText = low.map((t) => `sm_${t}`).join(", ");
    // One finding per function, at its first unguarded BF16 operation; the message counts the rest.
    const byFunction = new Map<number, typeof sites>();
    for (const s of sites) {
      if (inRanges(s.node.startIndex, off) || hasFp16Version(idx, s.fn)) continue;
      const list = byFunction.get(s.fn.start);
      if (list) list.push(s);
      else byFunction.set(s.fn.start, [s]);
    }
    for (const list of byFunction.values()) {
      const first = list[0]!;
      const more =
        list.length > 1
          ? ` (and ${list.length - 1} more BF16 operation${list.length > 2 ? "s" : ""} in this function)`
          : "";
      ctx.report({
        node: first.node,
        message: `${first.what} on ${first.kind === "bf16" ? "__nv_bfloat16" : "__nv_bfloat162"}${more} is compiled for ${lowText}, which has no BF16 units: it runs emulated through float there. For T4, instantiate the kernel with __half (FP16 runs natively on sm_75), or guard the BF16 path with \`#if __CUDA_ARCH__ >= 800\`.`,
      });
    }
  },
};
