// Which workspace source a kernel of an Nsight Systems report comes from, and the ncu filter that
// profiles it (no vscode here, so tests check it). Reports name kernels by their demangled name
// ("void at::native::k<4>(int)") and by a short one ("k"); sources declare `__global__ void k(`.
import { scanKernels } from "../server/bench/kernelScan";
import type { NsysSummary } from "../server/profile/nsysReportSummary";

/** The identifier a source declares: the report's short name, else the demangled name's last word before `(`/`<`. */
export function kernelIdentifier(summary: NsysSummary, name: string): string {
  const k = summary.kernels.find((x) => x.name === name);
  if (k && /^\w+$/.test(k.shortName)) return k.shortName;
  const head = name.replace(/^void\s+/, "").split(/[(<]/)[0]!;
  return head.split("::").pop()!.trim();
}

/** The 0-based line of `__global__` kernel `id`'s definition in `text`, if it has one (a cheap text check first). */
export function kernelLine(text: string, id: string): number | undefined {
  if (!id || !text.includes(id) || !text.includes("__global__")) return undefined;
  const k = scanKernels(text).find((x) => x.name === id && x.hasBody);
  return k ? k.nameSpan.startLine : undefined;
}

/** ncu -k regex:… matching exactly the kernel named `id` (ncu matches the function name). */
export function ncuKernelFilter(id: string): string {
  return `^${id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`;
}
