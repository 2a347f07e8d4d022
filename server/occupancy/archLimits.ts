// Per-architecture device limits the occupancy calculator needs: what cudaGetDeviceProperties reports
// for a device of that compute capability (the toolkit's occupancy header takes them from the device).
// sm_90 was read from an H100/H200 (test/fixtures/occupancy/); the others are the CUDA programming
// guide's "technical specifications per compute capability" and the driver's reserved 1 KB per block.
import { OccupancyInputError } from "./occupancyError";

export interface ArchLimits {
  /** Canonical name, e.g. "sm_90". */
  arch: string;
  major: number;
  minor: number;
  warpSize: number;
  maxThreadsPerBlock: number;
  maxThreadsPerSM: number;
  maxBlocksPerSM: number;
  regsPerBlock: number;
  regsPerSM: number;
  /** Per-block shared memory without opting in (48 KB). */
  sharedMemPerBlock: number;
  sharedMemPerBlockOptin: number;
  /** Shared memory per SM at the largest carveout. */
  sharedMemPerSM: number;
  reservedSharedMemPerBlock: number;
}

type Row = [
  major: number,
  minor: number,
  threadsPerSM: number,
  blocksPerSM: number,
  smemPerSMKB: number,
  optinKB: number,
  reservedB: number,
];

const KB = 1024;
const ROWS: Row[] = [
  [7, 5, 1024, 16, 64, 64, 0],
  [8, 0, 2048, 32, 164, 163, 1024],
  [8, 6, 1536, 16, 100, 99, 1024],
  [8, 7, 1536, 16, 164, 163, 1024],
  [8, 9, 1536, 24, 100, 99, 1024],
  [9, 0, 2048, 32, 228, 227, 1024],
  [10, 0, 2048, 32, 228, 227, 1024],
  [10, 3, 2048, 32, 228, 227, 1024],
  [12, 0, 1536, 24, 100, 99, 1024],
  [12, 1, 1536, 24, 100, 99, 1024],
];

const TABLE = new Map<string, ArchLimits>(
  ROWS.map(([major, minor, threads, blocks, smem, optin, reserved]) => {
    const arch = `sm_${major}${minor}`;
    return [
      arch,
      {
        arch,
        major,
        minor,
        warpSize: 32,
        maxThreadsPerBlock: 1024,
        maxThreadsPerSM: threads,
        maxBlocksPerSM: blocks,
        regsPerBlock: 64 * KB,
        regsPerSM: 64 * KB,
        sharedMemPerBlock: 48 * KB,
        sharedMemPerBlockOptin: optin * KB,
        sharedMemPerSM: smem * KB,
        reservedSharedMemPerBlock: reserved,
      },
    ];
  }),
);

/** The architectures the calculator knows, ascending. */
export const knownArchs: readonly string[] = [...TABLE.keys()];

/** "sm_90", "sm_90a", "compute_90", "90" or "9.0" to "sm_90"; undefined when it is no architecture name. */
export function canonicalArch(name: string): string | undefined {
  const s = name.trim().toLowerCase();
  const dotted = /^(\d+)\.(\d)$/.exec(s);
  if (dotted) return `sm_${dotted[1]}${dotted[2]}`;
  const m = /^(?:sm_|compute_|lto_)?(\d{2,3})[af]?$/.exec(s);
  return m ? `sm_${m[1]}` : undefined;
}

export function archLimits(name: string): ArchLimits {
  const arch = canonicalArch(name);
  const limits = arch === undefined ? undefined : TABLE.get(arch);
  if (!limits)
    throw new OccupancyInputError(`unknown architecture "${name}"; known: ${knownArchs.join(", ")}`);
  return limits;
}
