// No NVIDIA GPU runs more than 1024 threads in a block (or 64 in z); the launch fails with
// cudaErrorInvalidConfiguration and, unchecked, the kernel simply never runs.
import { blockSizeRule } from "../analysis/launches/blockSize";

export const blockSizeTooLarge = blockSizeRule(
  {
    id: "block-size-too-large",
    defaultSeverity: "error",
    basis: "fails-at-run-time",
    summary:
      "More than 1024 threads per block (or a block dimension over its limit): the launch always fails.",
  },
  (b) => {
    const [x, y, z] = b.dims;
    const threads = x * y * z;
    let why: string | undefined;
    if (threads > 1024) why = `${threads} threads per block is over the limit of 1024`;
    else if (x > 1024 || y > 1024) why = `a block dimension of ${Math.max(x, y)} is over the limit of 1024`;
    else if (z > 64) why = `block z of ${z} is over the limit of 64`;
    if (!why) return undefined;
    return {
      message:
        b.source === "launch"
          ? `${why}: the launch fails with cudaErrorInvalidConfiguration on every GPU.`
          : `${why}: __launch_bounds__ cannot exceed 1024 threads.`,
    };
  },
);
