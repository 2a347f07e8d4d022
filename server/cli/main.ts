// `cuda-kernel-dev`: every feature of the extension from a terminal, for CI and other editors.
// Each subcommand lives in its own file under server/cli/ and is registered here.
import { VERSION } from "../version";
import { Command, CommanderError } from "commander";
import { allowEveryLaunch, setLaunchPolicy } from "../process/launchPolicy";
import { errorMessage } from "../util/errorMessage";
import { CliError } from "./cliError";
import { EXIT } from "./exitCodes";
import { lintCommand } from "./lint";
import { lspCommand } from "./lsp";
import { devicesCommand } from "./devices";
import { ncuCommand } from "./ncu";
import { profileCommand } from "./profile";
import { occupancyCommand } from "./occupancy";
import { resourcesCommand } from "./resources";
import { benchCommand } from "./bench";
import { nsysCommand } from "./nsys";

// The launcher refuses everything until a front end says otherwise; the CLI runs the tools its user
// asked for (`cuda-kernel-dev lsp` takes it away again: the language server runs none).
setLaunchPolicy(allowEveryLaunch);

const program = new Command("cuda-kernel-dev")
  .description("Lint, benchmark, profile and size CUDA kernels.")
  .version(VERSION)
  .showHelpAfterError()
  .exitOverride();

const commands: Command[] = [
  ncuCommand(),
  profileCommand(),
  devicesCommand(),
  lintCommand(),
  lspCommand(),
  occupancyCommand(),
  resourcesCommand(),
  benchCommand(),
  nsysCommand(),
];
// addCommand copies no settings: each command (and its own subcommands) throws its usage errors here
// too, so they exit 2 like every other bad usage instead of commander's 1.
const throwUsageErrors = (c: Command): void => {
  c.exitOverride();
  c.commands.forEach(throwUsageErrors);
};
for (const c of commands) {
  throwUsageErrors(c);
  program.addCommand(c);
}

program.parseAsync(process.argv).catch((err: unknown) => {
  // Help and --version exit 0; every other complaint of commander's (unknown option, bad choice,
  // missing argument) is bad usage.
  if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? EXIT.ok : EXIT.usage);
  const message = errorMessage(err);
  process.stderr.write(`cuda-kernel-dev: ${message}\n`);
  process.exit(err instanceof CliError ? err.exitCode : EXIT.usage);
});
