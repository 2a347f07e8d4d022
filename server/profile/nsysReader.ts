// The reader process (bundled as dist/nsysReader.js; started by nsysReaderClient.ts through
// server/process/isolated.ts): reads one SQLite export, untrusted input, and answers with its
// summary (and, for the panel, its timeline's trace, bounded: nsysReportStream.ts). SQLite's heap is capped (PRAGMA hard_heap_limit) so
// that what the WebAssembly memory holds stays inside the budget the caller watches.
import { serveOne } from "../process/isolated";
import { NsysReportError } from "./nsysReportError";
import type { NsysReadReply, NsysReadRequest } from "./nsysReaderClient";
import { readSqlite, summarizeSqlite } from "./nsysReportSummary";
import { toWire } from "./nsysTraceWire";

serveOne<NsysReadRequest, NsysReadReply>(async (req) => {
  try {
    const limits = { sqliteHeapMb: req.sqliteHeapMb, maxRows: req.maxRows };
    if (req.want === "summary") return { summary: await summarizeSqlite(req.file, req.report, limits) };
    const r = await readSqlite(req.file, req.report, limits);
    return { summary: r.summary, trace: toWire(r.trace) };
  } catch (e) {
    if (e instanceof NsysReportError) return { error: { message: e.message, code: e.code } };
    throw e;
  }
});
