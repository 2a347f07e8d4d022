// The one error of the Nsight Systems readers, with a code the CLI maps to its exit code
// (server/cli/nsys.ts) and the panel to its message.
export type NsysErrorCode =
  | "NOT_FOUND"
  | "DAMAGED"
  | "NOT_NSYS"
  | "EXPORT_FAILED"
  | "NO_NSYS"
  | "IMPORTER"
  | "PROFILE_FAILED"
  | "CANCELLED"
  | "USAGE"
  /** The reader ran past its time budget (the reader process was killed). */
  | "TIME_BUDGET"
  /** The reader needed more memory than its budget (the reader process was killed, or SQLite refused). */
  | "MEMORY_BUDGET"
  /** A query would have returned more rows than the reader takes from one table. */
  | "ROW_BUDGET";

export class NsysReportError extends Error {
  constructor(
    message: string,
    readonly code: NsysErrorCode,
  ) {
    super(message);
    this.name = "NsysReportError";
  }
}
