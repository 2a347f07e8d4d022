// `cuda-kernel-dev`: every feature of the extension from a terminal, for CI and other editors.
// Each subcommand lives in its own file under server/cli/ and is registered here.
import { Command, CommanderError } from "commander";
import { errorMessage } from "../util/errorMessage";
import { CliError } from "./cliError";
import { lintCommand } from "./lint";
import { lspCommand } from "./lsp";
import { devicesCommand } from "./devices";
import { ncuCommand } from "./ncu";
import { profileCommand } from "./profile";
import { occupancyCommand } from "./occupancy";
import { resourcesCommand } from "./resources";
import { benchCommand } from "./bench";
import { nsysCommand } from "./nsys";

const program = new Command("cuda-kernel-dev")
  .description("Lint, benchmark, profile and size CUDA kernels.")
  .version("0.1.0")
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
for (const c of commands) program.addCommand(c);

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof CommanderError) process.exit(err.exitCode);
  const message = errorMessage(err);
  process.stderr.write(`cuda-kernel-dev: ${message}\n`);
  process.exit(err instanceof CliError ? err.exitCode : 2);
});
