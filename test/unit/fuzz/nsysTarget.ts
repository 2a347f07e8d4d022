// Fuzz target for `nsys stats` CSV tables; provenance by the layout (report line, header, row).
import { NsysCsvError, parseNsysStats } from "../../support/nsysStatsCsv";
import { firstRecord, read } from "./fixtureText";
import { lineTarget, type Facts, type Target } from "./target";

async function parseNsys(text: string): Promise<Facts> {
  await Promise.resolve();
  const s = parseNsysStats(text);
  const f: Facts = new Map();
  for (const [table, rows] of [
    ["kern", s.kernels],
    ["mem", s.memory],
  ] as const)
    for (const r of rows ?? []) {
      const name = "name" in r ? r.name : r.operation;
      for (const [k, v] of Object.entries(r) as [string, unknown][])
        if (typeof v === "number" || v === null) f.set(`${table}|${name}|${k}`, v);
    }
  return f;
}

export async function nsysTarget(file: string): Promise<Target> {
  const text = read(`test/fixtures/profile/${file}`);
  const lines = text.split("\n");
  // Provenance by the layout: a "Processing" line names the report, then a header and rows.
  const provenance = new Map<string, Set<number>>();
  let processing = -1;
  let header: { line: number; names: string[] } | undefined;
  lines.forEach((l, i) => {
    if (l.startsWith("Processing")) processing = i;
    else if (l.trim() === "") header = undefined;
    else if (/Total Time/.test(l)) header = { line: i, names: firstRecord(l) };
    else if (header) {
      const rec = firstRecord(l);
      const name = rec[header.names.findIndex((n) => n === "Name" || n === "Operation")]!;
      const table = header.names.includes("Operation") ? "mem" : "kern";
      for (const k of [
        "timePct",
        "totalNs",
        "instances",
        "count",
        "avgNs",
        "medNs",
        "minNs",
        "maxNs",
        "stdDevNs",
      ])
        provenance.set(`${table}|${name}|${k}`, new Set([processing, header.line, i]));
    }
  });
  return lineTarget({
    name: `nsys stats (${file})`,
    lines,
    provenance,
    parse: parseNsys,
    isClearError: (e) => e instanceof NsysCsvError,
  });
}
