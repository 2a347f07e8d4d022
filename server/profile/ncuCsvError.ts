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
