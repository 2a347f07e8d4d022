// Which of the 16-bit types' switches (the macros that remove their operators or conversions) a file's
// build sets: shared by half-operator and half-implicit-conversion.
import { PYTORCH_NVCC_DEFINES } from "../../lint/buildFiles";
import { usesTorch } from "../source/pytorchExtension";
import type { LintContext } from "../../rules/rule";
import type { FileIndex } from "../source/fileIndex";
import type { HalfKind } from "../types/halfTypes";

/** Per kind whose switch is set: where it comes from, for the message. */
export type Switches = Partial<Record<HalfKind, string>>;

/**
 * `macros` (per kind, the macro that removes what a rule checks) the build sets: the build file's -D flags
 * when one says how the file is compiled, else PyTorch's nvcc flags when the file includes PyTorch headers.
 */
export function switchesSet(
  ctx: LintContext,
  idx: FileIndex,
  macros: Readonly<Partial<Record<HalfKind, string>>>,
): Switches {
  const out: Switches = {};
  const torch = !ctx.build.definesKnown && usesTorch(idx);
  for (const [kind, macro] of Object.entries(macros) as [HalfKind, string][]) {
    if (ctx.build.definesKnown) {
      if (ctx.build.defines.has(macro)) out[kind] = `-D${macro}, which this file's build sets`;
    } else if (torch && PYTORCH_NVCC_DEFINES.includes(macro)) {
      out[kind] = `-D${macro} (set by PyTorch extension builds)`;
    }
  }
  return out;
}
