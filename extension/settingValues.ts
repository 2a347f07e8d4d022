// The `cudaKernelDev.*` settings the extension reads, as typed values with their defaults and
// fallbacks in one place. vscode-free (it reads through any `get`, which vscode's
// WorkspaceConfiguration is), so unit tests check it against package.json. The `lint.*` settings
// are the language server's: it pulls them itself (server/lint/settings.ts).
import { resolveNvcc } from "../server/compiler/nvcc";
import type { ClockControl, NcuSet } from "../server/profile/ncuCli";

export const SECTION = "cudaKernelDev";

/** What reads one setting of the section; vscode.WorkspaceConfiguration is one. */
export interface SettingSource {
  get<T>(key: string): T | undefined;
}

/** The defaults package.json declares (a unit test holds them equal), used for a missing or mistyped value. */
export const DEFAULTS = {
  "runner.timeoutSeconds": 20,
  "ncu.path": "ncu",
  "ncu.set": "full",
  "ncu.clockControl": "base",
  "ncu.launchCount": 1,
  "ncu.skipLaunches": 0,
  "nsys.path": "nsys",
  "nvidiaSmi.path": "nvidia-smi",
  targets: [],
  "bench.arch": "",
  "bench.device": 0,
  "nvcc.path": "",
  "python.path": "python3",
  "python.keepAliveSeconds": 300,
  "nvcc.includePaths": [],
  "nvcc.extraArgs": [],
  "nvcc.checkOnSave": true,
  "nvcc.debounceMs": 300,
  "nvcc.timeoutSeconds": 120,
  "resources.codeLens": true,
} as const;

type Defaults = typeof DEFAULTS;
/** The keys whose default is a `V`: a getter of `V`s takes only those. */
type KeyOf<V> = { [K in keyof Defaults]: Defaults[K] extends V ? K : never }[keyof Defaults];

const NCU_SETS: readonly NcuSet[] = ["basic", "detailed", "full"];
const CLOCK_CONTROLS: readonly ClockControl[] = ["base", "none"];

/** An enum setting's value; outside the enum, the default (the value becomes an ncu flag). */
function oneOf<T extends string>(value: unknown, values: readonly T[], fallback: T): T {
  return values.find((x) => x === value) ?? fallback;
}

export interface NvccSettings {
  /** The configured nvcc; undefined when the setting is empty, and resolveNvcc searches for one. */
  path: string | undefined;
  includePaths: string[];
  extraArgs: string[];
  checkOnSave: boolean;
  debounceMs: number;
  timeoutMs: number;
}

export interface NcuSettings {
  path: string;
  set: NcuSet;
  clockControl: ClockControl;
  launchCount: number;
  skipLaunches: number;
}

export interface BenchSettings {
  /** Overrides the GPU's own architecture; undefined when the setting is empty. */
  arch: string | undefined;
  device: number;
  runnerTimeoutSeconds: number;
}

export class Settings {
  constructor(private readonly source: SettingSource) {}

  get nvcc(): NvccSettings {
    return {
      path: this.string("nvcc.path").trim() || undefined,
      includePaths: this.strings("nvcc.includePaths"),
      extraArgs: this.strings("nvcc.extraArgs"),
      checkOnSave: this.boolean("nvcc.checkOnSave"),
      debounceMs: this.number("nvcc.debounceMs"),
      timeoutMs: Math.max(1, this.number("nvcc.timeoutSeconds")) * 1000,
    };
  }

  /**
   * The nvcc executable: `nvcc.path` (a bare name looked up on PATH), else nvcc on PATH, else
   * $CUDA_HOME/bin, else /usr/local/cuda/bin (what README promises). Throws NvccNotFoundError.
   */
  nvccExecutable(env: NodeJS.ProcessEnv = process.env): Promise<string> {
    return resolveNvcc(this.nvcc.path, env);
  }

  /** `targets` as written (server/lint/arch.ts parses them). */
  get targets(): string[] {
    return this.strings("targets");
  }

  get ncu(): NcuSettings {
    return {
      path: this.program("ncu.path"),
      set: oneOf(this.source.get("ncu.set"), NCU_SETS, DEFAULTS["ncu.set"]),
      clockControl: oneOf(this.source.get("ncu.clockControl"), CLOCK_CONTROLS, DEFAULTS["ncu.clockControl"]),
      launchCount: this.number("ncu.launchCount"),
      skipLaunches: this.number("ncu.skipLaunches"),
    };
  }

  get nsysPath(): string {
    return this.program("nsys.path");
  }

  /** The Python of the PyTorch baseline (`@bench torch`). */
  get pythonPath(): string {
    return this.program("python.path");
  }

  /** How long the PyTorch sidecar waits, idle, for the next benchmark; 0: one per run. */
  get pythonKeepAliveSeconds(): number {
    return Math.max(0, this.number("python.keepAliveSeconds"));
  }

  get nvidiaSmiPath(): string {
    return this.program("nvidiaSmi.path");
  }

  get bench(): BenchSettings {
    return {
      arch: this.string("bench.arch").trim() || undefined,
      device: this.number("bench.device"),
      runnerTimeoutSeconds: this.number("runner.timeoutSeconds"),
    };
  }

  get resourcesCodeLens(): boolean {
    return this.boolean("resources.codeLens");
  }

  private string(key: KeyOf<string>): string {
    const v = this.source.get<unknown>(key);
    return typeof v === "string" ? v : DEFAULTS[key];
  }

  /** A program setting: an empty value means the default name, looked up on PATH. */
  private program(key: KeyOf<string>): string {
    return this.string(key) || DEFAULTS[key];
  }

  private number(key: KeyOf<number>): number {
    const v = this.source.get<unknown>(key);
    return typeof v === "number" && Number.isFinite(v) ? v : DEFAULTS[key];
  }

  private boolean(key: KeyOf<boolean>): boolean {
    const v = this.source.get<unknown>(key);
    return typeof v === "boolean" ? v : DEFAULTS[key];
  }

  private strings(key: KeyOf<readonly string[]>): string[] {
    const v = this.source.get<unknown>(key);
    return Array.isArray(v) && v.every((s) => typeof s === "string") ? v : [...DEFAULTS[key]];
  }
}
