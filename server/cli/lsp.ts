// `cuda-kernel-dev lsp --stdio`: the same language server the extension runs, for any LSP editor.
import { Command } from "commander";
import { setLaunchPolicy } from "../process/launchPolicy";
import { CliError } from "./cliError";
import { EXIT } from "./exitCodes";

export function lspCommand(): Command {
  return new Command("lsp")
    .description("Run the CUDA language server (diagnostics, quick fixes, hover, symbols) over stdio.")
    .option("--stdio", "talk LSP over stdin/stdout")
    .action(async (opts: { stdio?: boolean }) => {
      if (!opts.stdio) throw new CliError("only stdio is supported: cuda-kernel-dev lsp --stdio", EXIT.usage);
      // The language server runs no program: the CLI's allow-all goes, so one it reached would be refused.
      setLaunchPolicy(undefined);
      // Importing the server module starts it; the connection picks --stdio from the command line.
      await import("../lsp/main.js");
    });
}
