// Whole-file facts that findings anywhere in the file depend on. A windowed lint (server/lint/
// incremental.ts) keeps the findings outside its window only while this key is unchanged.
import { OPT_IN_ATTRIBUTE } from "../shared-memory-limit";
import { usesTorch } from "../missing-launch-check";
import { hasBf16Guard } from "./archGuard";
import type { FileIndex } from "./fileIndex";

export function fileContextKey(idx: FileIndex): string {
  return [
    // bf16-unsupported-arch: a cuda_bf16.h include is fine once anything in the file is guarded
    hasBf16Guard(idx),
    // shared-memory-limit: launches over 48 KB need the opt-in somewhere in the file
    idx.text.includes(OPT_IN_ATTRIBUTE),
    // missing-launch-check: the fix inserts the PyTorch macro only in PyTorch extensions
    usesTorch(idx),
  ].join(",");
}
