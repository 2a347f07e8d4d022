// The Nsight Systems panel's summary tables: kernels (as cuda_gpu_kern_sum, with actions to open a
// kernel's source and profile it with Nsight Compute), memory operations (cuda_gpu_mem_time_sum),
// NVTX ranges with launches per instance and the GPU's gaps inside them, and GPU idle share.
// Every name goes in as text.
import type { NsysSummary } from "../../server/profile/nsysReportSummary";
import { formatNs } from "../../server/util/formatNs";
import { el } from "../shared/dom";

export interface KernelActions {
  open(name: string): void;
  profile(name: string): void;
}

const pct = (v: number): string => `${v.toFixed(1)} %`;
const bytes = (b: number): string =>
  b >= 1e9
    ? `${(b / 1e9).toFixed(2)} GB`
    : b >= 1e6
      ? `${(b / 1e6).toFixed(2)} MB`
      : b >= 1e3
        ? `${(b / 1e3).toFixed(1)} KB`
        : `${b} B`;

function table(id: string, title: string, head: string[], rows: (string | HTMLElement)[][]): HTMLElement {
  const s = el("section");
  s.append(el("h2", title));
  const t = el("table");
  t.id = id;
  const tr = el("tr");
  for (const h of head) tr.append(el("th", h));
  t.append(tr);
  for (const r of rows) {
    const row = el("tr");
    for (const c of r) {
      const td = el("td");
      if (typeof c === "string") td.textContent = c;
      else td.append(c);
      row.append(td);
    }
    t.append(row);
  }
  s.append(t);
  return s;
}

function kernelCell(name: string, actions: KernelActions): HTMLElement {
  const cell = el("div", undefined, "kernel");
  const open = el("a", name, "kernel-name");
  open.href = "#";
  open.title = "Open this kernel's source when the workspace defines it";
  open.addEventListener("click", (e) => {
    e.preventDefault();
    actions.open(name);
  });
  const ncu = el("button", "Profile with Nsight Compute", "ncu");
  ncu.title = "Profile this kernel with Nsight Compute";
  ncu.addEventListener("click", () => actions.profile(name));
  cell.append(open, ncu);
  return cell;
}

export function renderTables(root: HTMLElement, s: NsysSummary, actions: KernelActions): void {
  const t = (ns: number): string => formatNs(ns);
  const facts = el("p", undefined, "facts");
  const idle = s.gpuIdle.map((g) => {
    const gpu = s.gpus.find((x) => x.id === g.deviceId)?.name ?? `GPU ${g.deviceId}`;
    return `${gpu}: idle ${pct(g.idlePct)} of ${t(g.endNs - g.startNs)}`;
  });
  facts.textContent = [`${s.launches} launches, ${s.kernelCount} kernels`, ...idle].join(" · ");
  facts.id = "facts";
  root.append(facts);
  root.append(
    table(
      "kernels",
      "Kernels",
      ["Name", "Instances", "Total", "Avg", "Median", "Min", "Max", "GPU time"],
      s.kernels.map((k) => [
        kernelCell(k.name, actions),
        String(k.instances),
        t(k.totalNs),
        t(k.avgNs),
        t(k.medNs),
        t(k.minNs),
        t(k.maxNs),
        pct(k.timePct),
      ]),
    ),
  );
  if (s.memory.length > 0)
    root.append(
      table(
        "memory",
        "Memory operations",
        ["Operation", "Count", "Total", "Avg", "Median", "Min", "Max", "Bytes", "Time"],
        s.memory.map((m) => [
          m.operation,
          String(m.instances),
          t(m.totalNs),
          t(m.avgNs),
          t(m.medNs),
          t(m.minNs),
          t(m.maxNs),
          bytes(m.bytes),
          pct(m.timePct),
        ]),
      ),
    );
  if (s.nvtx.length > 0)
    root.append(
      table(
        "nvtx",
        "NVTX ranges",
        ["Range", "Instances", "Avg", "Launches / instance", "Kernels", "GPU span", "Launch gaps"],
        s.nvtx.map((r) => [
          r.domain ? `${r.domain}: ${r.name}` : r.name,
          String(r.time.instances),
          t(r.time.avgNs),
          `${r.launches.avg} (${r.launches.min}–${r.launches.max})`,
          String(r.kernels),
          t(r.gpuSpanNs),
          r.gpuSpanNs > 0 ? `${t(r.gapNs)} (${pct((100 * r.gapNs) / r.gpuSpanNs)})` : "n/a",
        ]),
      ),
    );
}
