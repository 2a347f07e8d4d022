// The repository root, from the source (test/gpu/) and from the bundle (dist/gpu-tests/) alike.
import { join } from "node:path";

export const repoRoot = join(__dirname, "..", "..");
