import { EXIT } from "./exitCodes";

/** An error the CLI prints as one line (no stack trace) before exiting with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.usage,
  ) {
    super(message);
    this.name = "CliError";
  }
}
