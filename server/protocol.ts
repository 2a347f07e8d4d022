// The extension <-> language server boundary: every custom message, declared once.
// Owned by the server; the extension imports it type-only (plus the method names).

/** Where the target architectures in force came from, in the order they are looked for. */
export type TargetSource =
  | "setting"
  | "build.toml"
  | "CMakeLists.txt"
  | "setup.py"
  | "TORCH_CUDA_ARCH_LIST"
  | "compile_commands.json"
  | "cli"
  | "default";

export interface TargetsParams {
  uri: string;
  /** e.g. ["sm_75", "sm_90"], sorted ascending. */
  archs: string[];
  source: TargetSource;
  /** The file the targets were read from, when they came from a file. */
  file?: string;
  /** Problems met on the way (unreadable build files, invalid settings); the targets still apply. */
  notes?: string[];
}

/** Server -> client notification: the resolved targets of a document changed. */
export const targetsNotification = "cudaKernelDev/targets";

export interface ServerStatusParams {
  health: "ok" | "warning" | "error";
  message: string;
}

/** Server -> client notification: the server's health (e.g. the parser failed to load). */
export const serverStatusNotification = "cudaKernelDev/status";
