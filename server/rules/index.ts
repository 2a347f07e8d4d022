// The rule registry: every rule module, in the order they run. Ids are interface (configs, suppressions, CI).
import type { Rule } from "./rule";
import { bf16EmulatedArch } from "./bf16-emulated-arch";
import { bf16UnsupportedArch } from "./bf16-unsupported-arch";
import { blockSizeNotWarpMultiple } from "./block-size-not-warp-multiple";
import { blockSizeTooLarge } from "./block-size-too-large";
import { candleExternC } from "./candle-extern-c";
import { deprecatedShuffle } from "./deprecated-shuffle";
import { flashrtKernelName } from "./flashrt-kernel-name";
import { halfImplicitConversion } from "./half-implicit-conversion";
import { halfOperator } from "./half-operator";
import { intIndexOverflow } from "./int-index-overflow";
import { missingLaunchCheck } from "./missing-launch-check";
import { scalarFloatAccess } from "./scalar-float-access";
import { scalarHalfAccess } from "./scalar-half-access";
import { sharedMemoryLimit } from "./shared-memory-limit";
import { sharedMemoryReduction } from "./shared-memory-reduction";
import { syncthreadsInDivergentBranch } from "./syncthreads-in-divergent-branch";

export const rules: readonly Rule[] = [
  bf16UnsupportedArch,
  bf16EmulatedArch,
  scalarHalfAccess,
  scalarFloatAccess,
  deprecatedShuffle,
  sharedMemoryReduction,
  halfOperator,
  halfImplicitConversion,
  blockSizeNotWarpMultiple,
  blockSizeTooLarge,
  sharedMemoryLimit,
  syncthreadsInDivergentBranch,
  missingLaunchCheck,
  intIndexOverflow,
  // Project conventions: they run only where .cuda-kernel-dev.toml opts in ([conventions]).
  candleExternC,
  flashrtKernelName,
];
