// Is the file a PyTorch extension's source, by its text, and which of PyTorch's APIs does it use: c10's
// (it includes c10/cuda, ATen/cuda or other torch/ headers, or names C10_CUDA_KERNEL_LAUNCH_CHECK) or the
// stable ABI's (it includes torch/csrc/stable/ or torch/headeronly/ headers only, or names STD_TORCH_CHECK,
// STD_CUDA_KERNEL_LAUNCH_CHECK or torch::stable). A whole-file fact (fileContext.ts). Asked where no build
// file says how the file is compiled: such a file is built with PyTorch's nvcc flags, and only there is
// one of PyTorch's launch-check macros known to be declared. Cannot see: a PyTorch header reached only
// through a project header.
import type { FileIndex } from "./fileIndex";

/** A PyTorch header's include, from its `include` (a regex starting at `#` tries every directive). */
const TORCH_INCLUDE = /include\s*[<"](c10\/cuda\/|ATen\/cuda\/|torch\/)([\w/]*)/g;

/** The stable ABI's headers (no c10 there: its macros are STD_*). */
const STABLE_HEADER = /^(?:csrc\/stable|headeronly)\//;

/** Names only code on the stable ABI writes. */
const STABLE_NAMES = /\bSTD_TORCH_CHECK\b|\bSTD_CUDA_KERNEL_LAUNCH_CHECK\b|\btorch\s*::\s*stable\b/;

/** Which PyTorch API a file uses: "c10" (the check macro is C10_CUDA_KERNEL_LAUNCH_CHECK) or "stable" (STD_…). */
export type TorchApi = "c10" | "stable";

/** The PyTorch API the file's text uses, if any (one answer per run, recorded as context:torch). */
export function torchApi(idx: FileIndex): TorchApi | undefined {
  idx.reads("context:torch");
  return idx.shared("usesTorch", () => apiOf(idx.text));
}

/** A PyTorch extension: only there is a check macro known to exist (the fix inserts it). */
export function usesTorch(idx: FileIndex): boolean {
  return torchApi(idx) !== undefined;
}

/**
 * c10's when the file names its check macro or includes one of its headers (`#`, any spaces, `include`...);
 * else the stable ABI's when it includes only stable headers or names the stable ABI's words.
 */
function apiOf(text: string): TorchApi | undefined {
  if (text.includes("C10_CUDA_KERNEL_LAUNCH_CHECK")) return "c10";
  let stable = false;
  for (const m of text.matchAll(TORCH_INCLUDE)) {
    let at = m.index;
    while (at > 0 && /\s/.test(text[at - 1]!)) at--;
    if (text[at - 1] !== "#") continue;
    if (m[1] !== "torch/" || !STABLE_HEADER.test(m[2]!)) return "c10";
    stable = true;
  }
  return stable || STABLE_NAMES.test(text) ? "stable" : undefined;
}
