// The timeline's trace as the reader process sends it to the panel (nsysReader.ts ->
// nsysReaderClient.ts): a column of numbers per field of the GPU operations, and a table of their
// names. At most TIMELINE_ENTRIES operations (nsysReportStream.ts): past it, merged ones.
// The IPC channel copies a typed array as its bytes, where it serializes objects one field at a
// time: on the 101,000-launch bench export, the objects took 1.3-2.5 s to serialize and read back
// (v8.serialize, a loaded 2-core machine), the columns a few tens of milliseconds with the
// conversion on both sides. The ranges and GPUs (a few thousand at most) go as they are.
import type { NsysGpuOp, NsysOpKind, NsysTimelineTrace } from "./nsysReport";

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
    /** NsysGpuOp.merged; 0 for one operation. */
    merged: Uint32Array;
  };
  ranges: NsysTimelineTrace["ranges"];
  gpus: NsysTimelineTrace["gpus"];
  merged?: NsysTimelineTrace["merged"];
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

export function toWire(t: NsysTimelineTrace): WireTrace {
  const n = t.ops.length;
  const { names, id } = nameTable();
  const ops = {
    kind: new Uint8Array(n),
    base: new Float64Array(n * BASE),
    name: new Uint32Array(n * 2),
    extra: new Float64Array(n * EXTRA).fill(NaN),
    merged: new Uint32Array(n),
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
    if (o.merged !== undefined) ops.merged[i] = o.merged;
  });
  const w: WireTrace = { names, ops, ranges: t.ranges, gpus: t.gpus };
  if (t.merged) w.merged = t.merged;
  return w;
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
  if (w.ops.merged[i]! > 0) op.merged = w.ops.merged[i]!;
  return op;
}

export function fromWire(w: WireTrace): NsysTimelineTrace {
  const ops: NsysGpuOp[] = new Array<NsysGpuOp>(w.ops.kind.length);
  for (let i = 0; i < ops.length; i++) ops[i] = opAt(w, i);
  const t: NsysTimelineTrace = { ops, ranges: w.ranges, gpus: w.gpus };
  if (w.merged) t.merged = w.merged;
  return t;
}
