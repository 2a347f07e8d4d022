// The "CUDA Devices" view: each GPU from `nvidia-smi -q -x` (name, architecture, memory, clocks,
// temperature, power, driver and CUDA versions), joined by ordinal with what the runner's driver
// query reports (compute capability, SMs, L2, peak DRAM bandwidth) when the runner is available.
// Nothing runs until the view is shown.
import * as vscode from "vscode";
import type { DeviceAttributes } from "../native/runner/protocol";
import { RunnerClient } from "../native/runner/runnerClient";
import { queryNvidiaSmi, type SmiDevice, type SmiLog } from "../server/profile/nvidiaSmi";
import { errorMessage } from "../server/util/errorMessage";
import { REFRESH_DEVICES_COMMAND, type Commands } from "./contributions";
import { settings } from "./settings";

export type DeviceItem =
  | { kind: "device"; device: SmiDevice; attrs?: DeviceAttributes }
  | { kind: "info"; label: string; description?: string; tooltip?: string };

const gib = (b: number | null): string => (b === null ? "n/a" : `${(b / 1024 ** 3).toFixed(1)} GiB`);
const mhz = (hz: number | null): string => (hz === null ? "n/a" : `${(hz / 1e6).toFixed(0)} MHz`);
const num = (v: number | null, unit: string): string => (v === null ? "n/a" : `${v} ${unit}`);

export function deviceDetails(d: SmiDevice, a?: DeviceAttributes): [string, string][] {
  const rows: [string, string][] = [
    ["Architecture", d.architecture ?? "n/a"],
    ["Memory", `${gib(d.memoryUsedBytes)} used of ${gib(d.memoryTotalBytes)}`],
    ["SM clock", `${mhz(d.smClockHz)} (max ${mhz(d.maxSmClockHz)})`],
    ["Memory clock", `${mhz(d.memClockHz)} (max ${mhz(d.maxMemClockHz)})`],
    [
      "Temperature",
      `${num(d.temperatureC, "°C")}${d.memoryTemperatureC !== null ? `, memory ${d.memoryTemperatureC} °C` : ""}`,
    ],
    ["Power", `${num(d.powerDrawW, "W")} of ${num(d.powerLimitW, "W")}`],
    ["Utilization", num(d.gpuUtilizationPct, "%")],
    ["Performance state", d.performanceState ?? "n/a"],
    ["PCI bus", d.pciBusId],
  ];
  if (a) {
    rows.push(
      ["Compute capability", a.computeCapability],
      ["SMs", String(a.smCount)],
      ["L2 cache", `${(a.l2CacheBytes / 1024 ** 2).toFixed(0)} MiB`],
      ["Peak DRAM bandwidth", `${a.peakDramBandwidthGBs.toFixed(0)} GB/s`],
      [
        "Shared memory / SM",
        `${(a.sharedMemPerSMBytes / 1024).toFixed(0)} KiB (opt-in ${(a.sharedMemPerBlockOptinBytes / 1024).toFixed(0)} KiB per block)`,
      ],
      ["Max threads / SM", String(a.maxThreadsPerSM)],
    );
  }
  return rows;
}

export class DevicesProvider implements vscode.TreeDataProvider<DeviceItem> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private state: Promise<{ log?: SmiLog; error?: string; attrs: DeviceAttributes[] }> | undefined;

  constructor(private readonly log: vscode.LogOutputChannel) {}

  refresh(): void {
    this.state = undefined;
    this.changed.fire();
  }

  private async load(): Promise<{ log?: SmiLog; error?: string; attrs: DeviceAttributes[] }> {
    const path = settings().nvidiaSmiPath;
    let smi: SmiLog | undefined;
    let error: string | undefined;
    try {
      smi = await queryNvidiaSmi(path);
    } catch (e) {
      // NvidiaSmiError, or the launcher's LaunchError (e.g. Restricted Mode): its message is the sentence.
      error = errorMessage(e);
      this.log.warn(`devices: ${error}`);
    }
    let attrs: DeviceAttributes[] = [];
    if (smi && smi.devices.length > 0 && vscode.workspace.isTrusted) {
      // The runner loads the driver in its own process; a failure there only loses the extra rows.
      const client = new RunnerClient({ timeoutSeconds: 10 });
      try {
        attrs = await client.request("devices", {});
      } catch (e) {
        this.log.info(`devices: runner attributes unavailable: ${errorMessage(e)}`);
      } finally {
        void client.dispose();
      }
    }
    return { ...(smi ? { log: smi } : {}), ...(error ? { error } : {}), attrs };
  }

  async getChildren(item?: DeviceItem): Promise<DeviceItem[]> {
    if (item?.kind === "device")
      return deviceDetails(item.device, item.attrs).map(([label, description]) => ({
        kind: "info",
        label,
        description,
      }));
    if (item) return [];
    this.state ??= this.load();
    const s = await this.state;
    if (!s.log)
      return [
        { kind: "info", label: "No NVIDIA GPU found", description: s.error ?? "", tooltip: s.error ?? "" },
      ];
    const items: DeviceItem[] = s.log.devices.map((device) => {
      const attrs = s.attrs.find((a) => a.ordinal === device.index);
      return attrs ? { kind: "device", device, attrs } : { kind: "device", device };
    });
    items.push({
      kind: "info",
      label: "Driver",
      description: `${s.log.driverVersion ?? "n/a"}, CUDA ${s.log.cudaVersion ?? "n/a"}`,
    });
    return items;
  }

  getTreeItem(item: DeviceItem): vscode.TreeItem {
    if (item.kind === "info") {
      const t = new vscode.TreeItem(item.label, vscode.TreeItemCollapsibleState.None);
      if (item.description !== undefined) t.description = item.description;
      if (item.tooltip) t.tooltip = item.tooltip;
      return t;
    }
    const d = item.device;
    const t = new vscode.TreeItem(`${d.index}: ${d.name}`, vscode.TreeItemCollapsibleState.Collapsed);
    t.description = `${d.architecture ?? ""}${item.attrs ? ` sm_${item.attrs.computeCapability.replace(".", "")}` : ""} · ${gib(d.memoryTotalBytes)}`;
    t.iconPath = new vscode.ThemeIcon("chip");
    t.tooltip = `${d.name} (${d.uuid ?? d.pciBusId})`;
    return t;
  }
}

/** The profiling bundle's view data and its refresh command; the entry registers the view (extension/lazyFeatures.ts). */
export function activate(log: vscode.LogOutputChannel): {
  devices: DevicesProvider;
  commands: Commands<typeof REFRESH_DEVICES_COMMAND>;
} {
  const devices = new DevicesProvider(log);
  return { devices, commands: { [REFRESH_DEVICES_COMMAND]: () => devices.refresh() } };
}
