// The event-overhead calibration of benchmark times: CUDA events around a kernel read a roughly
// constant ~1 µs above Nsight Compute's gpu__time_duration (the GPU's own handling of the events and
// the launch), which matters only for small kernels. `cuda-kernel-dev bench --calibrate` measures an
// empty kernel both ways on this GPU (calibrate.ts) and keeps the difference here, per GPU and
// driver, in the user's cache folder (never the workspace: a workspace must not be able to plant a
// correction). A run on a calibrated GPU times the empty kernel again in its own runner process and
// reports every time as event time − (that − ncu's figure), keeping the raw event median beside it;
// the stopping rule and the RSD stay those of the raw samples.
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import type { SampleStats } from "../../native/runner/protocol";
import { errorMessage } from "../util/errorMessage";

export const CALIBRATION_SCHEMA = 1;

/** One GPU's calibration: its event time and ncu's of an empty kernel, and the difference. */
export interface TimingCalibration {
  /** The device name, as the driver reports it. */
  gpu: string;
  /** cuDriverGetVersion, e.g. 12040: another driver may handle events differently. */
  driverVersion: number;
  /** eventNs − ncuNs: what is taken off every time. */
  offsetNs: number;
  /** The runner's median of an empty <<<1,1>>> kernel, timed like any kernel. */
  eventNs: number;
  /** ncu's median gpu__time_duration.sum of the same kernel (--clock-control none --cache-control all). */
  ncuNs: number;
  ncuLaunches: number;
  /** ISO time of the calibration. */
  calibratedAt: string;
}

/** What a run applied (or why it applied nothing), for the results and their notes. */
export interface AppliedCalibration {
  offsetNs: number;
  eventNs: number;
  ncuNs: number;
  calibratedAt: string;
  /** The empty kernel's event median in this run's runner process: then offsetNs = it − ncuNs (emptyKernel.ts). */
  runEventNs?: number;
}

interface CalibrationFile {
  schema: typeof CALIBRATION_SCHEMA;
  calibrations: TimingCalibration[];
}

/** $XDG_CACHE_HOME/cuda-kernel-dev/timing-calibration.json (~/.cache when unset). */
export function calibrationPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "cuda-kernel-dev", "timing-calibration.json");
}

const sameGpu = (c: TimingCalibration, gpu: string, driverVersion: number | null): boolean =>
  c.gpu === gpu && c.driverVersion === driverVersion;

function isCalibration(x: unknown): x is TimingCalibration {
  if (typeof x !== "object" || x === null) return false;
  const c = x as Record<string, unknown>;
  const finite = (v: unknown) => typeof v === "number" && Number.isFinite(v);
  return (
    typeof c.gpu === "string" &&
    Number.isInteger(c.driverVersion) &&
    finite(c.offsetNs) &&
    finite(c.eventNs) &&
    finite(c.ncuNs) &&
    Number.isInteger(c.ncuLaunches) &&
    typeof c.calibratedAt === "string"
  );
}

/** The file's calibrations; throws with the reason when it is not a calibration file. */
function parseCalibrations(text: string): TimingCalibration[] {
  const data = JSON.parse(text) as unknown;
  const f = data as Partial<CalibrationFile> | null;
  if (
    typeof f !== "object" ||
    f === null ||
    f.schema !== CALIBRATION_SCHEMA ||
    !Array.isArray(f.calibrations)
  )
    throw new Error(`not a schema ${CALIBRATION_SCHEMA} calibration file`);
  if (!f.calibrations.every(isCalibration)) throw new Error("an entry lacks a field or has a bad value");
  return f.calibrations;
}

/** All calibrations in the file; none when it is missing. A malformed file is ignored, with a note. */
async function readCalibrations(path: string): Promise<{ calibrations: TimingCalibration[]; note?: string }> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { calibrations: [] };
    return { calibrations: [], note: `timing calibration ${path} unreadable (${errorMessage(e)}), ignored` };
  }
  try {
    return { calibrations: parseCalibrations(text) };
  } catch (e) {
    return {
      calibrations: [],
      note: `timing calibration ${path} is malformed (${errorMessage(e)}), ignored`,
    };
  }
}

/** This GPU and driver's calibration, if any; `note` says why a file there was not used. */
export async function loadCalibration(
  gpu: string,
  driverVersion: number | null,
  path: string = calibrationPath(),
): Promise<{ calibration?: TimingCalibration; note?: string }> {
  const { calibrations, note } = await readCalibrations(path);
  const calibration = calibrations.find((c) => sameGpu(c, gpu, driverVersion));
  return { ...(calibration ? { calibration } : {}), ...(note ? { note } : {}) };
}

/** Keeps `c`, replacing this GPU and driver's earlier one (a malformed file is replaced whole). */
export async function saveCalibration(c: TimingCalibration, path: string = calibrationPath()): Promise<void> {
  const { calibrations } = await readCalibrations(path);
  const file: CalibrationFile = {
    schema: CALIBRATION_SCHEMA,
    calibrations: [...calibrations.filter((o) => !sameGpu(o, c.gpu, c.driverVersion)), c],
  };
  await mkdir(dirname(path), { recursive: true });
  // Whole or not at all: a run reading it meanwhile sees the old file or the new one.
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(file, null, 2)}\n`);
  await rename(tmp, path);
}

/** Stats with the event overhead taken off; `eventMedianNs` keeps the raw median. */
export type CorrectedStats = SampleStats & { eventMedianNs?: number };

/**
 * Every time of `s` less the offset, never below 0; the spread (stdev) and the RSD stay the raw
 * samples', which the stopping rule judged.
 */
export function correctStats(s: SampleStats, offsetNs: number): CorrectedStats {
  const less = (ns: number) => Math.max(0, ns - offsetNs);
  return {
    ...s,
    medianNs: less(s.medianNs),
    minNs: less(s.minNs),
    maxNs: less(s.maxNs),
    meanNs: less(s.meanNs),
    ...(s.midMeanNs !== undefined ? { midMeanNs: less(s.midMeanNs) } : {}),
    eventMedianNs: s.medianNs,
  };
}

export const UNCALIBRATED_NOTE = "small kernels read ~1 µs high: run `cuda-kernel-dev bench --calibrate`";

/** The results' one line on the correction: applied (with its date), or how to get one. */
export function calibrationNote(applied: AppliedCalibration | undefined): string {
  if (!applied) return UNCALIBRATED_NOTE;
  const us = (applied.offsetNs / 1e3).toFixed(2);
  const how = applied.runEventNs === undefined ? "" : " (this run's empty kernel less ncu's)";
  return `event overhead −${us} µs${how}, calibrated with ncu on ${applied.calibratedAt.slice(0, 10)}`;
}

/**
 * The calibration with this run's event time of the empty kernel: the offset becomes it less ncu's
 * cached figure (the overhead moves between runner processes; emptyKernel.ts). One below ncu's
 * figure would make a negative offset: the cached offset stands.
 */
export function appliedThisRun(a: AppliedCalibration, runEventNs: number): AppliedCalibration {
  return runEventNs >= a.ncuNs ? { ...a, offsetNs: runEventNs - a.ncuNs, runEventNs } : a;
}

export function appliedOf(c: TimingCalibration): AppliedCalibration {
  return { offsetNs: c.offsetNs, eventNs: c.eventNs, ncuNs: c.ncuNs, calibratedAt: c.calibratedAt };
}
