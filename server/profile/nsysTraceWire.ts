// The trace as the reader process sends it to the panel (nsysReader.ts -> nsysReaderClient.ts):
// a column of numbers per field of the GPU operations and API calls, and a table of their names.
// The IPC channel copies a typed array as its bytes, where it serializes objects one field at a
// time: on the 101,000-launch bench export, the objects took 1.3-2.5 s to serialize and read back
// (v8.serialize, a loaded 2-core machine), the columns a few tens of milliseconds with the
// conversion on both sides. The ranges and GPUs (a few thousand at most) go as they are.
import type { NsysApiCall, NsysGpuOp, NsysOpKind, NsysTrace } from "./nsysReport";

const KINDS: readonly NsysOpKind[] = ["kernel", "memcpy", "memset"];

export interface WireTrace {
  names: string[];
  ops: {
    kind: Uint8Array;
    /** start, end, deviceId, streamId, correlationId, globalPid per operation. */
    base: Float64Array;
    /** Indexes into names: name, shortName. */
    name: Uint32Array;
    /** gridX..Z, blockX..Z, registersPerThread of a kernel; bytes of a copy or memset; NaN where none. */
    extra: Float64Array;
  };
  /** start, end, globalTid, correlationId per call. */
  calls: Float64Array;
  ranges: NsysTrace["ranges"];
  gpus: NsysTrace["gpus"];
}

const BASE = 6;
const EXTRA = 7;

function nameTable(): { names: string[]; id: (s: string) => number } {
  const names: string[] = [];
  const ids = new Map<string, number>();
  return {
    names,
    id: (s) => {
      let i = ids.get(s);
      if (i === undefined) ids.set(s, (i = names.push(s) - 1));
      return i;
    },
  };
}

export function toWire(t: NsysTrace): WireTrace {
  const n = t.ops.length;
  const { names, id } = nameTable();
  const ops = {
    kind: new Uint8Array(n),
    base: new Float64Array(n * BASE),
    name: new Uint32Array(n * 2),
    extra: new Float64Array(n * EXTRA).fill(NaN),
  };
  const { base, extra } = ops;
  t.ops.forEach((o, i) => {
    const at = i * BASE;
    const ex = i * EXTRA;
    ops.kind[i] = o.kind === "kernel" ? 0 : o.kind === "memcpy" ? 1 : 2;
    base[at] = o.startNs;
    base[at + 1] = o.endNs;
    base[at + 2] = o.deviceId;
    base[at + 3] = o.streamId;
    base[at + 4] = o.correlationId;
    base[at + 5] = o.globalPid;
    ops.name[2 * i] = id(o.name);
    ops.name[2 * i + 1] = id(o.shortName);
    if (o.grid && o.block)
      for (let d = 0; d < 3; d++) {
        extra[ex + d] = o.grid[d]!;
        extra[ex + 3 + d] = o.block[d]!;
      }
    if (o.registersPerThread !== undefined) extra[ex + 6] = o.registersPerThread;
    if (o.bytes !== undefined) extra[ex] = o.bytes;
  });
  const calls = new Float64Array(t.calls.length * 4);
  t.calls.forEach((c, i) => {
    calls[4 * i] = c.startNs;
    calls[4 * i + 1] = c.endNs;
    calls[4 * i + 2] = c.globalTid;
    calls[4 * i + 3] = c.correlationId;
  });
  return { names, ops, calls, ranges: t.ranges, gpus: t.gpus };
}

function opAt(w: WireTrace, i: number): NsysGpuOp {
  const b = w.ops.base;
  const x = w.ops.extra;
  const at = i * BASE;
  const ex = i * EXTRA;
  const kind = KINDS[w.ops.kind[i]!]!;
  const op: NsysGpuOp = {
    kind,
    startNs: b[at]!,
    endNs: b[at + 1]!,
    deviceId: b[at + 2]!,
    streamId: b[at + 3]!,
    correlationId: b[at + 4]!,
    globalPid: b[at + 5]!,
    name: w.names[w.ops.name[2 * i]!]!,
    shortName: w.names[w.ops.name[2 * i + 1]!]!,
  };
  if (kind === "kernel") {
    if (!Number.isNaN(x[ex])) {
      op.grid = [x[ex]!, x[ex + 1]!, x[ex + 2]!];
      op.block = [x[ex + 3]!, x[ex + 4]!, x[ex + 5]!];
    }
    if (!Number.isNaN(x[ex + 6])) op.registersPerThread = x[ex + 6]!;
  } else if (!Number.isNaN(x[ex])) op.bytes = x[ex]!;
  return op;
}

export function fromWire(w: WireTrace): NsysTrace {
  const ops: NsysGpuOp[] = new Array<NsysGpuOp>(w.ops.kind.length);
  for (let i = 0; i < ops.length; i++) ops[i] = opAt(w, i);
  const calls: NsysApiCall[] = new Array<NsysApiCall>(w.calls.length / 4);
  const c = w.calls;
  for (let i = 0; i < calls.length; i++)
    calls[i] = {
      startNs: c[4 * i]!,
      endNs: c[4 * i + 1]!,
      globalTid: c[4 * i + 2]!,
      correlationId: c[4 * i + 3]!,
    };
  return { ops, calls, ranges: w.ranges, gpus: w.gpus };
}
