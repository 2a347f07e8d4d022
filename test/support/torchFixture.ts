// test/fixtures/bench/torch.cu, shared by the PyTorch baseline's unit and GPU tests.
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const torchFixture = join(__dirname, "..", "fixtures", "bench", "torch.cu");

/** The 1-based line of the fixture's raising expression (where its Python error must point). */
export function raisingLine(): number {
  return (
    readFileSync(torchFixture, "utf8")
      .split("\n")
      .findIndex((l) => l.includes("torch x.no_such_method")) + 1
  );
}
