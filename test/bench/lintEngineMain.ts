// The entry of the bundle bench:lint times the engine from (lint.ts): the workload's path is the argument.
import { readFileSync } from "node:fs";
import { errorMessage } from "../../server/util/errorMessage";
import { engineFigures } from "./lintEngine";

engineFigures(readFileSync(process.argv[2]!, "utf8")).catch((err: unknown) => {
  console.error(errorMessage(err));
  process.exitCode = 1;
});
