/** TEXT as an error message quotes a field of the input: at most 80 characters of it. */
export function clip(text: string): string {
  return text.length <= 80
    ? text
    : `${text.slice(0, 79)}… (${text.length.toLocaleString("en-US")} characters)`;
}

/** Bad ncu export input: says what and where, so the user never gets a silently wrong number. */
export class NcuCsvError extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(line === undefined ? message : `line ${line}: ${message}`);
    this.name = "NcuCsvError";
  }
}
