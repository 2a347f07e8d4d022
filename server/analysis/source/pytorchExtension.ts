// Is the file a PyTorch extension's source, by its text: it includes a PyTorch header (c10/cuda, ATen/cuda,
// torch/) or names C10_CUDA_KERNEL_LAUNCH_CHECK. A whole-file fact (fileContext.ts). Asked where no build
// file says how the file is compiled: such a file is built with PyTorch's nvcc flags, and only there is
// PyTorch's launch-check macro known to exist.
import type { FileIndex } from "./fileIndex";

/** A PyTorch header's include, from its `include` (a regex starting at `#` tries every directive). */
const TORCH_INCLUDE = /include\s*[<"](c10\/cuda\/|ATen\/cuda\/|torch\/)/g;

/** A PyTorch extension: only there is the check macro known to exist (the fix inserts it). */
export function usesTorch(idx: FileIndex): boolean {
  idx.reads("context:torch");
  return idx.shared("usesTorch", () => torchText(idx.text));
}

/** The check macro named, or a PyTorch header included (`#`, any spaces, `include`...) anywhere in `text`. */
function torchText(text: string): boolean {
  if (text.includes("C10_CUDA_KERNEL_LAUNCH_CHECK")) return true;
  for (const m of text.matchAll(TORCH_INCLUDE)) {
    let at = m.index;
    while (at > 0 && /\s/.test(text[at - 1]!)) at--;
    if (text[at - 1] === "#") return true;
  }
  return false;
}
