// The repository root, from the source (test/gpu/) and from the bundle (dist/gpu-tests/) alike, and
// the nvcc that compiles the test kernels.
import { existsSync } from "node:fs";
import { join } from "node:path";

export const repoRoot = join(__dirname, "..", "..");

export const nvcc = existsSync("/usr/local/cuda/bin/nvcc") ? "/usr/local/cuda/bin/nvcc" : "nvcc";
