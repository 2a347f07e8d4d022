// The extension <-> language server boundary: every custom message, declared once with its parameter type
// so that both sides are type-checked. Owned by the server. The message types are values built on
// vscode-languageserver-protocol, which the extension's language client bundles already, so importing
// them does not pull the server into the extension bundle.
import { NotificationType } from "vscode-languageserver-protocol";
import type { TargetSource } from "./lint/targets";

/** What the extension passes in `initialize` (untyped on the wire: the server checks each field). */
export interface InitializationOptions {
  /** Where the extension is installed. */
  extensionPath?: string;
  /** Lint this long after the last keystroke (default 120 ms; benchmarks and tests use 0). */
  lintDebounceMs?: number;
  /** The `cudaKernelDev` settings, for a client that cannot answer workspace/configuration. */
  settings?: unknown;
}

export interface TargetsParams {
  uri: string;
  /** e.g. ["sm_75", "sm_90"], sorted ascending. */
  archs: string[];
  source: TargetSource;
  /** The file the targets were read from, when they came from a file. */
  file?: string;
  /** Problems met on the way (unreadable build files, invalid settings); the targets still apply. */
  notes?: string[];
  /** The file's build context as lines (build, backend, targets, macros), for the status item's tooltip. */
  context?: string[];
}

/** Server -> client: the resolved targets of a document changed. */
export const targetsNotification = new NotificationType<TargetsParams>("cudaKernelDev/targets");

export interface MachineGpuParams {
  /** This machine's GPU as an SM number (the lowest when there are several), e.g. 90. */
  arch: number;
}

/**
 * Client -> server: the machine's GPU, found by the extension (nvidia-smi at its machine-scoped path, in a
 * trusted workspace). Files that declare no targets assume it, as `cuda-kernel-dev lint` does.
 */
export const machineGpuNotification = new NotificationType<MachineGpuParams>("cudaKernelDev/machineGpu");

export interface ServerStatusParams {
  health: "ok" | "warning" | "error";
  message: string;
}

/** Server -> client: the server's health (e.g. the parser failed to load). */
export const serverStatusNotification = new NotificationType<ServerStatusParams>("cudaKernelDev/status");
