// A command line the user typed ("python bench.py --n 4096") as an argument array: quotes group,
// nothing is expanded, no shell runs it.
import { parseArgsStringToArgv } from "string-argv";

export function splitCommandLine(line: string): string[] {
  const argv = parseArgsStringToArgv(line.trim());
  if (argv.length === 0) throw new Error("the command line is empty");
  return argv;
}
