// The Occupancy panel's own messages (extension -> panel); what the panel says back (ready,
// rendered, failed) is the shared half, webview/shared/protocol.ts. Owned by the panel; the
// extension imports it (the guards too: both sides validate what they receive, nothing is trusted
// because it is typed).
import { isRecord } from "../shared/protocol";

/** One architecture's tab: the kernel's resources there and the launch to mark. */
export interface OccupancyPoint {
  arch: string;
  regs: number;
  staticSmem: number;
  barriers: number;
  block: number;
  dynamicSmem: number;
}

/** Extension -> panel: show this kernel (one tab per target architecture). */
export interface ShowMessage {
  type: "show";
  kernel: string;
  file: string;
  points: OccupancyPoint[];
}

const isCount = (x: unknown, max: number): x is number =>
  typeof x === "number" && Number.isInteger(x) && x >= 0 && x <= max;
const isShortString = (x: unknown): x is string => typeof x === "string" && x.length <= 4096;

export function isOccupancyPoint(x: unknown): x is OccupancyPoint {
  return (
    isRecord(x) &&
    typeof x.arch === "string" &&
    /^sm_\d{2,3}[af]?$/.test(x.arch) &&
    isCount(x.regs, 255) &&
    isCount(x.staticSmem, 1 << 20) &&
    isCount(x.barriers, 16) &&
    isCount(x.block, 1024) &&
    x.block >= 1 &&
    isCount(x.dynamicSmem, 1 << 20)
  );
}

export function isShowMessage(x: unknown): x is ShowMessage {
  return (
    isRecord(x) &&
    x.type === "show" &&
    isShortString(x.kernel) &&
    isShortString(x.file) &&
    Array.isArray(x.points) &&
    x.points.length > 0 &&
    x.points.length <= 32 &&
    x.points.every(isOccupancyPoint)
  );
}
