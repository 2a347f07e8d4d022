// The occupancy calculator: a port of cudaOccMaxActiveBlocksPerMultiprocessor from the toolkit's
// cuda_occupancy.h (CUDA 13.0), for compute capabilities 7.5 and newer. The per-architecture
// granularities and shared-memory carveout steps are NVIDIA's; the per-device limits (threads, shared
// memory, reserved shared memory per SM) are the ones the driver reports, kept in archLimits.ts.
// The result is checked row by row against cuOccupancyMaxActiveBlocksPerMultiprocessor on a real GPU
// (test/fixtures/occupancy/sweep-*.csv).
import { archLimits, type ArchLimits } from "./archLimits";
import { OccupancyInputError } from "./occupancyError";

export { OccupancyInputError };

export type Limiter = "warps" | "registers" | "sharedMemory" | "blocks" | "barriers";

export interface KernelUsage {
  /** Registers per thread, as ptxas or cuFuncGetAttribute reports them. */
  regsPerThread: number;
  /** Static `__shared__` bytes of the kernel. */
  staticSmemBytes: number;
  /** Named barriers the kernel uses (ptxas "used N barriers"); the driver assumes 1. */
  barriers?: number;
  /**
   * The kernel's cudaFuncAttributeMaxDynamicSharedMemorySize. Default: the opt-in maximum less the
   * static size, i.e. the kernel was opted in to all the dynamic shared memory the device allows.
   */
  maxDynamicSmemBytes?: number;
}

export interface LaunchShape {
  blockSize: number;
  dynamicSmemBytes: number;
}

/** Blocks per SM each resource allows; null where the resource sets no limit. */
export interface BlockLimits {
  warps: number;
  registers: number | null;
  sharedMemory: number | null;
  blocks: number;
  barriers: number | null;
}

export interface OccupancyResult {
  arch: string;
  activeBlocksPerSM: number;
  activeWarpsPerSM: number;
  maxWarpsPerSM: number;
  /** activeWarpsPerSM / maxWarpsPerSM, in percent. */
  occupancyPct: number;
  /** The first of `limiters` (warps, registers, shared memory, blocks, barriers, in that order). */
  limitedBy: Limiter;
  /** Every limit equal to the result (ties happen: 1024 threads x 32 registers binds both). */
  limiters: Limiter[];
  blockLimits: BlockLimits;
  allocatedRegistersPerBlock: number;
  allocatedSmemPerBlock: number;
  /** Why the kernel cannot launch at all, when activeBlocksPerSM is 0. */
  reason?: string;
}

const INT_MAX = 2147483647;

const divideRoundUp = (x: number, y: number): number => Math.floor((x + y - 1) / y);
const roundUp = (x: number, y: number): number => y * divideRoundUp(x, y);

// cudaOccSMemAllocationGranularity
function smemAllocationGranularity(major: number): number {
  return major >= 8 ? 128 : 256;
}

// cudaOccRegAllocationMaxPerThread / cudaOccRegAllocationGranularity / cudaOccSubPartitionsPerMultiprocessor
const REG_MAX_PER_THREAD = 256;
const REG_ALLOCATION_GRANULARITY = 256;
const SUB_PARTITIONS = 4;

// cudaOccAlignUpShmemSizeVoltaPlus: the shared-memory carveouts an SM can be configured to, in KB.
function carveoutSteps(l: ArchLimits): number[] {
  if (l.major === 7) return l.minor === 5 ? [32, 64] : [0, 8, 16, 32, 64, 96];
  if (l.major === 8)
    return l.minor === 0 || l.minor === 7 ? [0, 8, 16, 32, 64, 100, 132, 164] : [0, 8, 16, 32, 64, 100];
  if (l.major === 12) return [0, 8, 16, 32, 64, 100];
  return [0, 8, 16, 32, 64, 100, 132, 164, 196, 228];
}

function alignUpCarveout(bytes: number, l: ArchLimits): number | undefined {
  for (const kb of carveoutSteps(l)) if (bytes <= kb * 1024) return kb * 1024;
  return undefined;
}

// cudaOccMaxBlocksPerSMBlockBarrierLimit: barrier slots per SM, as a multiple of the block limit.
function barrierSlotsPerBlockSlot(l: ArchLimits): number {
  if (l.major === 8) return l.minor === 0 ? 2 : 1;
  if (l.major === 10) return l.minor === 1 ? 1 : 2;
  if (l.major === 11) return l.minor === 0 ? 1 : 2;
  if (l.major === 12) return 1;
  return 2;
}

function checkInteger(name: string, v: number, min: number): void {
  if (!Number.isInteger(v) || v < min)
    throw new OccupancyInputError(`${name} must be an integer >= ${min}, got ${v}`);
}

/** What one resource allows: blocks per SM (INT_MAX: no limit) and what a block is allocated of it. */
interface ResourceLimit {
  limit: number;
  allocatedPerBlock: number;
}

// cudaOccMaxBlocksPerSMRegsLimit (partitioned global caching is off from 7.x on).
function registersLimit(
  l: ArchLimits,
  kernel: KernelUsage,
  launch: LaunchShape,
  warpsPerBlock: number,
  reasons: string[],
): ResourceLimit {
  const regsAllocatedPerWarp = roundUp(kernel.regsPerThread * l.warpSize, REG_ALLOCATION_GRANULARITY);
  const allocatedPerBlock = regsAllocatedPerWarp * warpsPerBlock;
  // The hardware check assumes a block's warps are spread over all four sub-partitions.
  const regsAssumedPerBlock = regsAllocatedPerWarp * roundUp(warpsPerBlock, SUB_PARTITIONS);
  if (
    l.regsPerBlock < regsAssumedPerBlock ||
    l.regsPerBlock < allocatedPerBlock ||
    kernel.regsPerThread > REG_MAX_PER_THREAD
  ) {
    reasons.push(
      `${kernel.regsPerThread} registers x ${launch.blockSize} threads exceed the ${l.regsPerBlock} registers a block may use`,
    );
    return { limit: 0, allocatedPerBlock };
  }
  if (regsAllocatedPerWarp === 0) return { limit: INT_MAX, allocatedPerBlock };
  const warpsPerSubPartition = Math.floor(l.regsPerSM / SUB_PARTITIONS / regsAllocatedPerWarp);
  return { limit: Math.floor((warpsPerSubPartition * SUB_PARTITIONS) / warpsPerBlock), allocatedPerBlock };
}

// cudaOccMaxBlocksPerSMWarpsLimit.
function warpsLimit(l: ArchLimits, launch: LaunchShape, warpsPerBlock: number, reasons: string[]): number {
  if (launch.blockSize > l.maxThreadsPerBlock) {
    reasons.push(`a block of ${launch.blockSize} threads exceeds the ${l.maxThreadsPerBlock}-thread maximum`);
    return 0;
  }
  return Math.floor(l.maxThreadsPerSM / l.warpSize / warpsPerBlock);
}

// cudaOccMaxBlocksPerSMSmemLimit with the default carveout preference and the opt-in per-function
// limit that cudaFuncAttributes imply.
function sharedMemoryLimit(
  arch: string,
  l: ArchLimits,
  kernel: KernelUsage,
  launch: LaunchShape,
  maxDynamic: number,
  reasons: string[],
): ResourceLimit {
  const granularity = smemAllocationGranularity(l.major);
  const staticSmem = kernel.staticSmemBytes + l.reservedSharedMemPerBlock;
  const allocatedPerBlock = roundUp(staticSmem + launch.dynamicSmemBytes, granularity);
  const maxSmemUsagePerBlock = staticSmem + maxDynamic;
  let smemLimitPerBlock =
    maxSmemUsagePerBlock > l.sharedMemPerBlock ? l.sharedMemPerBlockOptin : l.sharedMemPerBlock;
  if (l.major >= 8) smemLimitPerBlock += l.reservedSharedMemPerBlock;
  if (launch.dynamicSmemBytes > maxDynamic) {
    reasons.push(
      `${launch.dynamicSmemBytes} B of dynamic shared memory exceed the kernel's limit of ${maxDynamic} B (cudaFuncAttributeMaxDynamicSharedMemorySize)`,
    );
    return { limit: 0, allocatedPerBlock };
  }
  if (allocatedPerBlock > smemLimitPerBlock) {
    reasons.push(
      `${allocatedPerBlock} B of shared memory per block exceed the ${smemLimitPerBlock} B a block may use`,
    );
    return { limit: 0, allocatedPerBlock };
  }
  if (allocatedPerBlock === 0) return { limit: INT_MAX, allocatedPerBlock };
  // The default carveout is the largest; cudaOccSMemPreferenceVoltaPlus aligns it up to a step.
  const preference = alignUpCarveout(l.sharedMemPerSM, l);
  if (preference === undefined)
    throw new OccupancyInputError(`${arch}: no shared memory carveout fits ${l.sharedMemPerSM} B`);
  let smemPerSM = preference;
  if (preference < allocatedPerBlock) {
    const aligned = alignUpCarveout(allocatedPerBlock, l);
    if (aligned === undefined)
      throw new OccupancyInputError(`${arch}: no shared memory carveout fits ${allocatedPerBlock} B`);
    smemPerSM = aligned;
  }
  return { limit: Math.floor(smemPerSM / allocatedPerBlock), allocatedPerBlock };
}

/** Active blocks per SM for a kernel and launch shape: the driver's answer for a device of `arch`. */
export function occupancy(arch: string, kernel: KernelUsage, launch: LaunchShape): OccupancyResult {
  const l = archLimits(arch);
  checkInteger("block size", launch.blockSize, 1);
  checkInteger("dynamic shared memory", launch.dynamicSmemBytes, 0);
  checkInteger("registers per thread", kernel.regsPerThread, 0);
  checkInteger("static shared memory", kernel.staticSmemBytes, 0);
  const barriers = kernel.barriers ?? 1;
  checkInteger("barriers", barriers, 0);
  const maxDynamic =
    kernel.maxDynamicSmemBytes ?? Math.max(0, l.sharedMemPerBlockOptin - kernel.staticSmemBytes);
  checkInteger("max dynamic shared memory", maxDynamic, 0);

  const warpsPerBlock = divideRoundUp(launch.blockSize, l.warpSize);
  const maxWarpsPerSM = l.maxThreadsPerSM / l.warpSize;
  const reasons: string[] = [];
  const regs = registersLimit(l, kernel, launch, warpsPerBlock, reasons);
  const warps = warpsLimit(l, launch, warpsPerBlock, reasons);
  const blocks = l.maxBlocksPerSM;
  const smem = sharedMemoryLimit(arch, l, kernel, launch, maxDynamic, reasons);

  const limit0 = Math.min(regs.limit, smem.limit, warps, blocks);
  let limiters: Limiter[] = [];
  if (limit0 === warps) limiters.push("warps");
  if (limit0 === regs.limit) limiters.push("registers");
  if (limit0 === smem.limit) limiters.push("sharedMemory");
  if (limit0 === blocks) limiters.push("blocks");

  // From Hopper on, block barriers limit occupancy too (the header ORs the bit into the others;
  // here a strictly lower barrier limit replaces them, so the named limit is the one that binds).
  let limit = limit0;
  let barriersLimit = INT_MAX;
  if (l.major >= 9 && barriers > 0) {
    barriersLimit = Math.floor((blocks * barrierSlotsPerBlockSlot(l)) / barriers);
    if (barriersLimit < limit0) limiters = ["barriers"];
    else if (barriersLimit === limit0) limiters.push("barriers");
    limit = Math.min(limit0, barriersLimit);
  }

  const orNull = (n: number): number | null => (n === INT_MAX ? null : n);
  const activeWarpsPerSM = limit * warpsPerBlock;
  const result: OccupancyResult = {
    arch: l.arch,
    activeBlocksPerSM: limit,
    activeWarpsPerSM,
    maxWarpsPerSM,
    occupancyPct: Math.round((activeWarpsPerSM / maxWarpsPerSM) * 1000) / 10,
    limitedBy: limiters[0] ?? "warps",
    limiters,
    blockLimits: {
      warps,
      registers: orNull(regs.limit),
      sharedMemory: orNull(smem.limit),
      blocks,
      barriers: orNull(barriersLimit),
    },
    allocatedRegistersPerBlock: regs.allocatedPerBlock,
    allocatedSmemPerBlock: smem.allocatedPerBlock,
  };
  if (limit === 0 && reasons.length > 0) result.reason = reasons.join("; ");
  return result;
}

/**
 * The largest block a kernel using `regsPerThread` registers can launch with (cuFuncGetAttribute's
 * MAX_THREADS_PER_BLOCK before __launch_bounds__): whole warps, in groups of four sub-partitions.
 */
export function maxThreadsPerBlockForRegs(arch: string, regsPerThread: number): number {
  const l = archLimits(arch);
  checkInteger("registers per thread", regsPerThread, 0);
  const perWarp = roundUp(regsPerThread * l.warpSize, REG_ALLOCATION_GRANULARITY);
  if (perWarp === 0) return l.maxThreadsPerBlock;
  let warps = Math.floor(l.regsPerBlock / perWarp);
  if (roundUp(warps, SUB_PARTITIONS) * perWarp > l.regsPerBlock) warps -= warps % SUB_PARTITIONS;
  return Math.min(l.maxThreadsPerBlock, warps * l.warpSize);
}
