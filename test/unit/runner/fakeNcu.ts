// A stand-in for ncu around the runner, for the client's wrapper and one-shot modes and for
// BenchProfiler: ncu's arguments up to `-c N`, then the program to profile, run with this process's
// stdio; ==PROF== lines on stdout before and after it, as ncu prints them; the program's exit code as
// its own. With `-k none` it profiles nothing and writes no report, as ncu when no kernel matched.
import { spawn } from "node:child_process";

const args = process.argv.slice(2);
const at = (flag: string): string | undefined => {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
};
const count = args.indexOf("-c");
const [command, ...rest] = args.slice(count + 2);
const report = at("-o") ?? "report";
const profilesNothing = at("-k") === "none";

console.log(`==PROF== Connected to process (fake ncu)`);
const child = spawn(command!, rest, { stdio: "inherit" });
child.on("close", (code) => {
  if (profilesNothing) console.log("==WARNING== No kernels were profiled.");
  else console.log(`==PROF== Report: ${report}.ncu-rep`);
  process.exit(code ?? 1);
});
