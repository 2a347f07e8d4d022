// A block whose thread count is not a multiple of 32 leaves the last warp partly idle on every block.
import { blockSizeRule, type KnownBlockSize } from "../analysis/launches/blockSize";
import { replaceNode } from "../analysis/source/nodes";

/**
 * A deliberate tiny launch, not a wasted warp: a block of one thread (a serial helper kernel, a delay, a
 * test probe), or a constant grid whose whole launch fits in one warp (`<<<2, 2>>>`).
 */
function isTinyLaunch(b: KnownBlockSize, threads: number): boolean {
  if (threads === 1) return true;
  const grid = b.grid?.();
  return grid !== undefined && grid[0] * grid[1] * grid[2] * threads <= 32;
}

export const blockSizeNotWarpMultiple = blockSizeRule(
  {
    id: "block-size-not-warp-multiple",
    defaultSeverity: "warning",
    basis: "heuristic",
    summary: "A block size known at lint time that is not a multiple of the 32-thread warp.",
  },
  (b) => {
    const threads = b.dims[0] * b.dims[1] * b.dims[2];
    if (threads <= 0 || threads % 32 === 0 || isTinyLaunch(b, threads)) return undefined;
    const up = Math.ceil(threads / 32) * 32;
    const idle = up - threads;
    const literal = b.dims[1] === 1 && b.dims[2] === 1 && up <= 1024 ? b.literal() : undefined;
    return {
      message: `${threads} threads per block is not a multiple of 32: the last warp of every block runs with ${idle} of 32 lanes idle. Use ${up}.`,
      fixes: literal
        ? [
            {
              title: `Round the block size up to ${up}`,
              isPreferred: true,
              edits: [replaceNode(literal, String(up))],
            },
          ]
        : [],
    };
  },
);
