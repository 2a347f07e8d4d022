// Finds and loads cuda_addon.node. Only the runner process calls this; the extension host never does.
// One loader, several places (installed extension, source tree, bundled GPU tests), one combined error.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { errorMessage } from "../../server/util/errorMessage";
import type { CudaAddon } from "../addon";

/** Names the one addon to load: with it set, no other place is tried (tests use it to exclude the built one). */
export const ADDON_ENV = "CUDA_KERNEL_DEV_ADDON";

export function addonCandidates(dir: string = __dirname): string[] {
  const fromEnv = process.env[ADDON_ENV];
  if (fromEnv) return [resolve(fromEnv)];
  return [
    join(dir, "native", "cuda_addon.node"), // dist/runner.js -> dist/native/
    join(dir, "..", "native", "cuda_addon.node"), // dist/<sub>/x.js -> dist/native/
    join(dir, "..", "build", "Release", "cuda_addon.node"), // native/runner/*.ts -> native/build/
  ];
}

export class AddonLoadError extends Error {
  readonly code = "NO_ADDON";
}

let cached: CudaAddon | undefined;

export function loadAddon(): CudaAddon {
  if (cached) return cached;
  const req = createRequire(__filename);
  const tried: string[] = [];
  for (const path of addonCandidates()) {
    if (!existsSync(path)) {
      tried.push(`${path} (missing)`);
      continue;
    }
    try {
      const mod = req(path) as CudaAddon;
      if (mod.abiVersion !== 1) throw new Error(`abiVersion ${String(mod.abiVersion)}, expected 1`);
      cached = mod;
      return mod;
    } catch (err) {
      tried.push(`${path} (${errorMessage(err)})`);
    }
  }
  throw new AddonLoadError(
    `the CUDA addon (cuda_addon.node) could not be loaded; tried: ${tried.join("; ")}`,
  );
}
