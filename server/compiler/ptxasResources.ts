// Per-kernel resource usage from `nvcc -Xptxas -v` (or `ptxas -v`) output, per architecture:
//   ptxas info    : Compiling entry function '_Z11rmsnorm_vec...' for 'sm_90'
//   ptxas info    : Function properties for _Z11rmsnorm_vec...
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 20 registers, used 1 barriers, 128 bytes smem, 384 bytes cmem[0]
// Device functions get "Function properties" without "Compiling entry function"; they are not kernels.
import { kernelDisplayName } from "./demangle";

export interface KernelResources {
  /** The symbol in the cubin, e.g. "_Z11sgemm_tiledILi16EEvPKfS1_Pfi". */
  symbol: string;
  /** Demangled, without parameters, e.g. "sgemm_tiled<16>"; the symbol when it cannot be demangled. */
  name: string;
  /** e.g. "sm_90" (also "sm_90a"). */
  arch: string;
  registers: number;
  barriers: number;
  /** Static shared memory, bytes. */
  sharedBytes: number;
  stackFrameBytes: number;
  /** Stack including called device functions ("cumulative stack size"); the frame when not printed. */
  cumulativeStackBytes: number;
  spillStoreBytes: number;
  spillLoadBytes: number;
  /** Constant banks by index, e.g. { 0: 384 } for cmem[0] (kernel parameters on sm_75..sm_89). */
  constantBytes: Record<number, number>;
  /** Local memory when ptxas prints "N bytes lmem" (older toolkits). */
  localBytes: number;
  compileTimeMs?: number;
}

const ENTRY = /Compiling entry function '([^']+)' for '([^']+)'/;
const PROPERTIES = /Function properties for (\S+)/;
const FRAME = /(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads/;
const USED = /Used (\d+) registers(.*)$/;
const COMPILE_TIME = /Compile time = ([\d.]+) ms/;

/**
 * Every kernel ptxas reported, in order of appearance; duplicate (symbol, arch) pairs keep the last.
 * ptxas prints one frame, "Used" and compile-time line per entry function; a kernel whose block has
 * none, or two, is left out (damaged or cut output) rather than shown with another kernel's numbers.
 */
export function parsePtxasResources(output: string): KernelResources[] {
  const kernels: KernelResources[] = [];
  const seen = new Map<KernelResources, Set<"frame" | "used" | "time">>();
  const damaged = new Set<KernelResources>();
  // Each line kind counts once per kernel; a second one means lines from elsewhere ended up here.
  const once = (k: KernelResources, what: "frame" | "used" | "time"): boolean => {
    const s = seen.get(k)!;
    if (s.has(what)) damaged.add(k);
    s.add(what);
    return !damaged.has(k);
  };
  let current: KernelResources | undefined;
  // "Function properties" may name a device function between two kernels: its frame line is not the kernel's.
  let propertiesOfCurrent = false;
  for (const line of output.split(/\r?\n/)) {
    const entry = ENTRY.exec(line);
    if (entry) {
      current = {
        symbol: entry[1]!,
        name: kernelDisplayName(entry[1]!),
        arch: entry[2]!,
        registers: 0,
        barriers: 0,
        sharedBytes: 0,
        stackFrameBytes: 0,
        cumulativeStackBytes: 0,
        spillStoreBytes: 0,
        spillLoadBytes: 0,
        constantBytes: {},
        localBytes: 0,
      };
      kernels.push(current);
      seen.set(current, new Set());
      propertiesOfCurrent = false;
      continue;
    }
    const props = PROPERTIES.exec(line);
    if (props) {
      propertiesOfCurrent = current !== undefined && props[1] === current.symbol;
      continue;
    }
    const frame = FRAME.exec(line);
    if (frame) {
      if (current && propertiesOfCurrent && once(current, "frame")) {
        current.stackFrameBytes = Number(frame[1]);
        current.spillStoreBytes = Number(frame[2]);
        current.spillLoadBytes = Number(frame[3]);
        current.cumulativeStackBytes = Math.max(current.cumulativeStackBytes, current.stackFrameBytes);
      }
      continue;
    }
    const used = USED.exec(line);
    if (used && current && once(current, "used")) {
      current.registers = Number(used[1]);
      for (const item of used[2]!.split(",")) {
        const barriers = /used (\d+) barriers/.exec(item);
        if (barriers) current.barriers = Number(barriers[1]);
        const bytes = /(\d+) bytes (smem|lmem|cmem\[(\d+)\]|cumulative stack size)/.exec(item);
        if (!bytes) continue;
        const n = Number(bytes[1]);
        if (bytes[2] === "smem") current.sharedBytes = n;
        else if (bytes[2] === "lmem") current.localBytes = n;
        else if (bytes[2] === "cumulative stack size") current.cumulativeStackBytes = n;
        else current.constantBytes[Number(bytes[3])] = n;
      }
      continue;
    }
    if (used) continue;
    const time = COMPILE_TIME.exec(line);
    if (time && current && once(current, "time")) current.compileTimeMs = Number(time[1]);
  }
  const byKey = new Map<string, KernelResources>();
  for (const k of kernels)
    if (!damaged.has(k) && seen.get(k)!.has("used")) byKey.set(`${k.arch}\0${k.symbol}`, k);
  return kernels.filter((k) => byKey.get(`${k.arch}\0${k.symbol}`) === k);
}

/** "sm_90: 40 regs · 0 B spill · 128 B smem", the text shown above a kernel. */
export function formatResources(k: KernelResources): string {
  const spill = k.spillStoreBytes + k.spillLoadBytes;
  return `${k.arch}: ${k.registers} regs · ${spill} B spill · ${k.sharedBytes} B smem`;
}
