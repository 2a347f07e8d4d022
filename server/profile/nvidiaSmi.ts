// `nvidia-smi -q -x` XML into device records for the CUDA Devices view. Values come as text with
// units ("143771 MiB", "1980 MHz", "41 C", "115.27 W") or "N/A"; we keep numbers in base units
// (bytes, Hz, degrees C, W) and null for N/A.
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { runTool, ToolMissingError } from "./spawnTool";

export interface SmiDevice {
  index: number;
  pciBusId: string;
  uuid: string | null;
  name: string;
  architecture: string | null;
  memoryTotalBytes: number | null;
  memoryUsedBytes: number | null;
  memoryFreeBytes: number | null;
  smClockHz: number | null;
  memClockHz: number | null;
  maxSmClockHz: number | null;
  maxMemClockHz: number | null;
  temperatureC: number | null;
  memoryTemperatureC: number | null;
  powerDrawW: number | null;
  powerLimitW: number | null;
  performanceState: string | null;
  gpuUtilizationPct: number | null;
  computeMode: string | null;
  migMode: string | null;
}

export interface SmiLog {
  driverVersion: string | null;
  cudaVersion: string | null;
  timestamp: string | null;
  devices: SmiDevice[];
}

export class NvidiaSmiError extends Error {
  constructor(
    message: string,
    readonly code: "NOT_FOUND" | "FAILED" | "BAD_XML",
  ) {
    super(message);
    this.name = "NvidiaSmiError";
  }
}

type Node = Record<string, unknown>;

const UNIT: Record<string, number> = {
  B: 1,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
  Hz: 1,
  KHz: 1e3,
  MHz: 1e6,
  GHz: 1e9,
  C: 1,
  W: 1,
  "%": 1,
};

/** "143771 MiB" -> bytes; "N/A" and anything unrecognised -> null. */
export function smiQuantity(text: unknown): number | null {
  if (typeof text === "number") return text;
  if (typeof text !== "string") return null;
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*(\S+)?\s*$/.exec(text);
  if (!m) return null;
  const factor = m[2] === undefined ? 1 : UNIT[m[2]];
  return factor === undefined ? null : Number(m[1]) * factor;
}

function text(v: unknown): string | null {
  if (typeof v === "string") return v.trim() === "N/A" ? null : v.trim();
  if (typeof v === "number") return String(v);
  return null;
}

function child(n: unknown, ...path: string[]): unknown {
  let cur = n;
  for (const p of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Node)[p];
  }
  return cur;
}

export function parseNvidiaSmiXml(xml: string): SmiLog {
  // Values stay strings: "00" bus numbers and "13.0" versions must not become numbers.
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "@_",
    parseTagValue: false,
    isArray: (name) => name === "gpu",
  });
  const valid = XMLValidator.validate(xml);
  if (valid !== true)
    throw new NvidiaSmiError(
      `nvidia-smi XML is damaged: ${valid.err.msg} (line ${valid.err.line})`,
      "BAD_XML",
    );
  let doc: Node;
  try {
    doc = parser.parse(xml) as Node;
  } catch (e) {
    // The validator lets some damage through (a second DOCTYPE) that the parser then throws on.
    throw new NvidiaSmiError(
      `nvidia-smi XML is damaged: ${e instanceof Error ? e.message : String(e)}`,
      "BAD_XML",
    );
  }
  const log = doc["nvidia_smi_log"];
  if (!log || typeof log !== "object")
    throw new NvidiaSmiError("not nvidia-smi -q -x output: no <nvidia_smi_log> element", "BAD_XML");
  const gpus = (child(log, "gpu") as Node[] | undefined) ?? [];
  return {
    driverVersion: text(child(log, "driver_version")),
    cudaVersion: text(child(log, "cuda_version")),
    timestamp: text(child(log, "timestamp")),
    devices: gpus.map((g, index) => ({
      index: smiQuantity(child(g, "minor_number")) ?? index,
      pciBusId: text(child(g, "@_id")) ?? text(child(g, "pci", "pci_bus_id")) ?? "",
      uuid: text(child(g, "uuid")),
      name: text(child(g, "product_name")) ?? "unknown GPU",
      architecture: text(child(g, "product_architecture")),
      memoryTotalBytes: smiQuantity(child(g, "fb_memory_usage", "total")),
      memoryUsedBytes: smiQuantity(child(g, "fb_memory_usage", "used")),
      memoryFreeBytes: smiQuantity(child(g, "fb_memory_usage", "free")),
      smClockHz: smiQuantity(child(g, "clocks", "sm_clock")),
      memClockHz: smiQuantity(child(g, "clocks", "mem_clock")),
      maxSmClockHz: smiQuantity(child(g, "max_clocks", "sm_clock")),
      maxMemClockHz: smiQuantity(child(g, "max_clocks", "mem_clock")),
      temperatureC: smiQuantity(child(g, "temperature", "gpu_temp")),
      memoryTemperatureC: smiQuantity(child(g, "temperature", "memory_temp")),
      powerDrawW: smiQuantity(
        child(g, "gpu_power_readings", "average_power_draw") ?? child(g, "power_readings", "power_draw"),
      ),
      powerLimitW: smiQuantity(
        child(g, "gpu_power_readings", "current_power_limit") ?? child(g, "power_readings", "power_limit"),
      ),
      performanceState: text(child(g, "performance_state")),
      gpuUtilizationPct: smiQuantity(child(g, "utilization", "gpu_util")),
      computeMode: text(child(g, "compute_mode")),
      migMode: text(child(g, "mig_mode", "current_mig")),
    })),
  };
}

/** Runs `nvidia-smi -q -x`; NOT_FOUND when there is no driver (no GPU on this machine). */
export async function queryNvidiaSmi(path = "nvidia-smi", signal?: AbortSignal): Promise<SmiLog> {
  let r;
  try {
    r = await runTool(path, ["-q", "-x"], signal ? { signal } : {});
  } catch (e) {
    if (e instanceof ToolMissingError)
      throw new NvidiaSmiError(
        `nvidia-smi not found ("${path}"): no NVIDIA driver on this machine`,
        "NOT_FOUND",
      );
    throw e;
  }
  if (r.exitCode !== 0)
    throw new NvidiaSmiError(
      `nvidia-smi failed (exit ${r.exitCode}): ${(r.stdout + r.stderr).trim().split("\n").slice(-3).join(" ")}`,
      "FAILED",
    );
  return parseNvidiaSmiXml(r.stdout);
}
