// This machine's GPU architecture, assumed for files that declare no targets. Asked of nvidia-smi (the
// caller passes a trusted path: the CLI's own PATH, or the extension's machine-scoped setting) through the
// process launcher, so an untrusted workspace runs nothing.
import { runTool } from "../profile/spawnTool";
import { parseArch } from "./arch";

/** The lowest SM of the GPUs nvidia-smi lists ("9.0" → 90); undefined when there is no driver or GPU. */
export async function machineGpuArch(nvidiaSmi = "nvidia-smi"): Promise<number | undefined> {
  try {
    const r = await runTool(nvidiaSmi, ["--query-gpu=compute_cap", "--format=csv,noheader"]);
    if (r.exitCode !== 0) return undefined;
    const archs = r.stdout
      .split(/\r?\n/)
      .map((l) => parseArch(l))
      .filter((sm): sm is number => sm !== undefined);
    return archs.length > 0 ? Math.min(...archs) : undefined;
  } catch {
    // Not found, refused, or it could not start: no GPU to assume.
    return undefined;
  }
}
