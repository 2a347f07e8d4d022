// The ids of what package.json contributes and the extension implements: its commands, custom editors
// and view. It takes only types from vscode, so a unit test holds them to package.json. Activation
// registers every one of them (keybindings, the palette, lenses and editors need that); the commands
// of LAZY_COMMANDS and the editors of LAZY_EDITORS run in a bundle loaded on first use (extension/lazy.ts).
import type * as vscode from "vscode";

export const COMPILE_NOW_COMMAND = "cudaKernelDev.compileNow";
export const SHOW_OCCUPANCY_COMMAND = "cudaKernelDev.showOccupancy";
export const SHOW_PTX_COMMAND = "cudaKernelDev.showPtx";
export const SHOW_SASS_COMMAND = "cudaKernelDev.showSass";
export const PROFILE_COMMAND = "cudaKernelDev.profileKernel";
export const OPEN_PROFILE_COMMAND = "cudaKernelDev.openProfile";
export const COMPARE_COMMAND = "cudaKernelDev.compareProfiles";
export const NSYS_COMMAND = "cudaKernelDev.nsysProfile";
export const REFRESH_DEVICES_COMMAND = "cudaKernelDev.refreshDevices";
export const BENCHMARK_COMMAND = "cudaKernelDev.benchmark";
export const OPEN_RESULTS_COMMAND = "cudaKernelDev.openBenchResults";
export const CALIBRATE_COMMAND = "cudaKernelDev.calibrateBenchTiming";
/** Cheap (a scan of the document), so it lives in the entry with its code action. */
export const WRITE_SPEC_COMMAND = "cudaKernelDev.writeBenchSpec";

/** The read-only PTX/SASS views' documents (extension/ptxView.ts). */
export const ASM_SCHEME = "cuda-kernel-dev-asm";

export const REPORT_EDITOR = "cudaKernelDev.ncuReport";
export const CSV_EDITOR = "cudaKernelDev.ncuCsv";
export const NSYS_EDITOR = "cudaKernelDev.nsysReport";
export const NSYS_SQLITE_EDITOR = "cudaKernelDev.nsysSqlite";
export const DEVICES_VIEW = "cudaKernelDev.devices";

/** The bundles loaded on first use that implement contributions: dist/<bundle>.js. */
export type FeatureBundle = "nvcc" | "profiling" | "bench";

/** The commands that run in a lazily loaded bundle, each with its bundle. */
export const LAZY_COMMANDS = {
  [COMPILE_NOW_COMMAND]: "nvcc",
  [SHOW_OCCUPANCY_COMMAND]: "nvcc",
  [SHOW_PTX_COMMAND]: "nvcc",
  [SHOW_SASS_COMMAND]: "nvcc",
  [PROFILE_COMMAND]: "profiling",
  [OPEN_PROFILE_COMMAND]: "profiling",
  [COMPARE_COMMAND]: "profiling",
  [NSYS_COMMAND]: "profiling",
  [REFRESH_DEVICES_COMMAND]: "profiling",
  [BENCHMARK_COMMAND]: "bench",
  [OPEN_RESULTS_COMMAND]: "bench",
  [CALIBRATE_COMMAND]: "bench",
} as const satisfies Record<string, FeatureBundle>;

/** The custom editors (all read-only), each with the bundle that implements it. */
export const LAZY_EDITORS = {
  [REPORT_EDITOR]: "profiling",
  [CSV_EDITOR]: "profiling",
  [NSYS_EDITOR]: "profiling",
  [NSYS_SQLITE_EDITOR]: "profiling",
} as const satisfies Record<string, FeatureBundle>;

export type LazyCommand = keyof typeof LAZY_COMMANDS;
export type LazyEditor = keyof typeof LAZY_EDITORS;

/** The ids of `table` that bundle `B` implements. */
type IdsOf<T extends Record<string, FeatureBundle>, B extends FeatureBundle> = {
  [K in keyof T]: T[K] extends B ? K : never;
}[keyof T];

/** Command arguments arrive untyped (a lens, a keybinding, another extension, the palette). */
export type CommandHandler = (...args: unknown[]) => unknown;

/** Handlers for the commands `K`: what a feature's activate hands back for its bundle to gather. */
export type Commands<K extends LazyCommand> = Record<K, CommandHandler>;

/** A custom editor's provider, for each of the editors `K`. */
export type Editors<K extends LazyEditor> = Record<K, vscode.CustomReadonlyEditorProvider>;

/** What bundle `B` hands back: a handler for each of its commands, a provider for each of its editors. */
export interface ContributionsOf<B extends FeatureBundle> {
  commands: Commands<IdsOf<typeof LAZY_COMMANDS, B>>;
  editors: Editors<IdsOf<typeof LAZY_EDITORS, B>>;
}
