// The extension <-> occupancy panel boundary. Owned by the panel; the extension imports it (the
// guards too: both sides validate what they receive, nothing is trusted because it is typed).

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

/** Panel -> extension: the script loaded and listens; send the state now. */
export interface ReadyMessage {
  type: "ready";
}

/** Panel -> extension: something could not be drawn (logged in the output channel). */
export interface ErrorMessage {
  type: "error";
  message: string;
}

export type ToPanel = ShowMessage;
export type FromPanel = ReadyMessage | ErrorMessage;

const isRecord = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);
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

export function isFromPanel(x: unknown): x is FromPanel {
  if (!isRecord(x)) return false;
  if (x.type === "ready") return true;
  return x.type === "error" && isShortString(x.message);
}
