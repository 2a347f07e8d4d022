// Saving a finished benchmark to the workspace history without ever losing the run: a history that
// cannot be written (a read-only workspace, a full disk) or read back gives a warning next to the
// results instead of an error in their place.
import { errorMessage } from "../util/errorMessage";
import { appendHistory, historyOf, historyPath, readHistory } from "./history";
import type { HistoryEntry } from "./results";

export interface RecordedRun {
  /** This kernel's runs, oldest first, this one last (only this one when the history is unusable). */
  history: HistoryEntry[];
  /** Something the user should know: the file was damaged and set aside, or could not be written. */
  warning?: string;
}

function why(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  const reasons: Record<string, string> = {
    EROFS: "the file system is read-only",
    EACCES: "permission denied",
    EPERM: "the operation is not permitted",
    ENOSPC: "the disk is full",
    ENOTDIR: "a file is in the way of its folder",
  };
  return (err.code && reasons[err.code]) ?? errorMessage(e);
}

export async function recordRun(workspace: string, entry: HistoryEntry): Promise<RecordedRun> {
  const path = historyPath(workspace);
  let warning: string | undefined;
  try {
    const appended = await appendHistory(workspace, entry);
    if (appended.setAside)
      warning = `the benchmark history was damaged; it was kept as ${appended.setAside} and a fresh one started`;
  } catch (e) {
    return {
      history: [entry],
      warning: `this run was not added to the benchmark history (${path}): ${why(e)}`,
    };
  }
  try {
    const read = await readHistory(workspace);
    if (read.setAside)
      warning = `the benchmark history was damaged; it was kept as ${read.setAside} and a fresh one started`;
    const history = historyOf(read.entries, entry.file, entry.kernel);
    return { history: history.length > 0 ? history : [entry], ...(warning ? { warning } : {}) };
  } catch (e) {
    return { history: [entry], warning: `the benchmark history (${path}) could not be read back: ${why(e)}` };
  }
}
