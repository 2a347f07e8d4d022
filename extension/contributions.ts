// The ids of what package.json contributes and the extension implements: its commands, custom editors
// and view. vscode-free, so a unit test holds them to package.json. Activation registers every one of
// them (keybindings, the palette, lenses and editors need that); the commands in LAZY_COMMANDS run in
// a bundle loaded on their first use (extension/lazy.ts).

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
/** Cheap (a scan of the document), so it lives in the entry with its code action. */
export const WRITE_SPEC_COMMAND = "cudaKernelDev.writeBenchSpec";

/** The read-only PTX/SASS views' documents (extension/ptxView.ts). */
export const ASM_SCHEME = "cuda-kernel-dev-asm";

export const REPORT_EDITOR = "cudaKernelDev.ncuReport";
export const CSV_EDITOR = "cudaKernelDev.ncuCsv";
export const DEVICES_VIEW = "cudaKernelDev.devices";

/** The commands that run in a lazily loaded bundle, dist/<bundle>.js, each with its bundle. */
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
} as const;

export type LazyCommand = keyof typeof LAZY_COMMANDS;
/** The bundles that implement commands. */
export type CommandBundle = (typeof LAZY_COMMANDS)[LazyCommand];

/** Command arguments arrive untyped (a lens, a keybinding, another extension, the palette). */
export type CommandHandler = (...args: unknown[]) => unknown;

/** Handlers for the commands `K`: what a feature's activate hands back for its bundle to gather. */
export type Commands<K extends LazyCommand> = Record<K, CommandHandler>;

/** What a bundle hands back: a handler for each command LAZY_COMMANDS gives it. */
export type CommandsOf<B extends CommandBundle> = Commands<
  { [K in LazyCommand]: (typeof LAZY_COMMANDS)[K] extends B ? K : never }[LazyCommand]
>;
