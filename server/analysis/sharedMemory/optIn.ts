// Whether the file sets the dynamic shared-memory opt-in attribute anywhere
// (cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)): launches over 48 KB are
// then acceptable up to the target's opt-in limit. A part of the whole-file context (lint/fileContext.ts).
// Cannot see: the attribute set in another file (a launcher elsewhere), or for which kernel it is set.
import type { FileIndex } from "../source/fileIndex";

/** Set anywhere in the file, the opt-in attribute makes launches over 48 KB acceptable. */
export const OPT_IN_ATTRIBUTE = "cudaFuncAttributeMaxDynamicSharedMemorySize";

/** Whether the file sets the opt-in attribute anywhere. */
export function optedIn(idx: FileIndex): boolean {
  idx.reads("context:optIn");
  return idx.shared("optedIn", () => idx.text.includes(OPT_IN_ATTRIBUTE));
}
