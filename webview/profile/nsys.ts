// Nsight Systems summaries of a command line in the profile panel: GPU time by kernel and the
// kernel and memory-operation tables (cuda_gpu_kern_sum, cuda_gpu_mem_time_sum).
import type { NsysStats } from "../../server/profile/nsysCsv";
import { el } from "../shared/dom";
import { chartBox, color, hbar } from "./chartBox";
import { time } from "./format";

interface Row {
  name: string;
  timePct: number;
  totalNs: number;
  n: number;
  avgNs: number;
  minNs: number;
  maxNs: number;
}

function nsysTable(title: string, rows: Row[]): HTMLElement {
  const s = el("section");
  s.append(el("h2", title));
  const t = el("table");
  const head = el("tr");
  for (const h of ["Name", "Time %", "Total", "Count", "Avg", "Min", "Max"]) head.append(el("th", h));
  t.append(head);
  for (const r of rows) {
    const row = el("tr");
    row.append(
      el("td", r.name),
      el("td", r.timePct.toFixed(1)),
      el("td", time(r.totalNs)),
      el("td", String(r.n)),
      el("td", time(r.avgNs)),
      el("td", time(r.minNs)),
      el("td", time(r.maxNs)),
    );
    t.append(row);
  }
  s.append(t);
  return s;
}

export function renderNsys(
  root: HTMLElement,
  msg: { title: string; command: string; stats: NsysStats },
): void {
  root.append(el("h1", msg.title), el("p", msg.command, "file"));
  for (const n of msg.stats.notes) root.append(el("p", n, "note"));
  const k = msg.stats.kernels ?? [];
  if (k.length > 0) {
    const grid = el("div", undefined, "charts");
    root.append(grid);
    const top = k.slice(0, 15);
    chartBox(
      grid,
      "nsys-kernels",
      "GPU time by kernel",
      hbar(
        top.map((r) => (r.name.length > 50 ? `${r.name.slice(0, 50)}…` : r.name)),
        [{ label: "total time (ns)", data: top.map((r) => r.totalNs), color: color.blue() }],
      ),
      40 + 24 * top.length,
    );
    root.append(
      nsysTable(
        "cuda_gpu_kern_sum",
        k.map((r) => ({ ...r, n: r.instances })),
      ),
    );
  }
  if (msg.stats.memory)
    root.append(
      nsysTable(
        "cuda_gpu_mem_time_sum",
        msg.stats.memory.map((r) => ({ ...r, name: r.operation, n: r.count })),
      ),
    );
}
