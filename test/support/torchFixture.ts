// test/fixtures/bench/torch.cu, shared by the PyTorch baseline's unit and GPU tests.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

// From the source (test/support/) or from the GPU tests' bundle (dist/gpu-tests/), where
// `../fixtures` is dist/fixtures, which does not exist: the tree's test/fixtures is two folders up.
const candidates = [
  join(__dirname, "..", "fixtures", "bench", "torch.cu"),
  join(__dirname, "..", "..", "test", "fixtures", "bench", "torch.cu"),
];
export const torchFixture = candidates.find((p) => existsSync(p)) ?? candidates[0]!;

/** The 1-based line of the fixture's raising expression (where its Python error must point). */
export function raisingLine(): number {
  return (
    readFileSync(torchFixture, "utf8")
      .split("\n")
      .findIndex((l) => l.includes("torch x.no_such_method")) + 1
  );
}
