// Stage 1 of a benchmark: the kernel and its spec, found in the file's one scan (the caller's, or
// read and scanned here) and checked without a GPU, so a bad spec is reported even where there is none.
import { readFile } from "node:fs/promises";
import { relative, resolve } from "node:path";
import type { DeviceAttributes } from "../../native/runner/protocol";
import { parseSpec } from "./benchSpec";
import { BenchError, type BenchJob } from "./benchJob";
import { type KernelInfo, scanKernels } from "./kernelScan";
import { planPoints, type SizePoint } from "./plan";
import { checkSignature } from "./signature";
import { SpecError } from "./specLexer";
import type { BenchSpec } from "./specTypes";

export interface PreparedBench {
  /** Absolute: the path the harness includes. */
  file: string;
  /** Relative to the workspace when inside it: how messages and results name the file. */
  shownFile: string;
  /** Every kernel of the file (the baseline is looked up here). */
  kernels: KernelInfo[];
  kernel: KernelInfo;
  spec: BenchSpec;
}

export function findKernel(kernels: KernelInfo[], name: string): KernelInfo | undefined {
  const defs = kernels.filter((k) => k.hasBody);
  return defs.find((k) => [...k.namespaces, k.name].join("::") === name) ?? defs.find((k) => k.name === name);
}

function specError(file: string, e: SpecError): BenchError {
  return new BenchError(
    "BAD_SPEC",
    `${file}:${e.span.startLine + 1}:${e.span.startColumn + 1}: ${e.message}`,
  );
}

async function scanFile(file: string): Promise<KernelInfo[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    throw new BenchError(
      "NO_KERNEL",
      `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
    );
  }
  return scanKernels(text);
}

/** The job's kernel with its parsed spec, checked against the signature and evaluated for every size. */
export async function prepareBench(job: BenchJob): Promise<PreparedBench> {
  const file = resolve(job.file);
  const shownFile =
    job.workspace && !relative(job.workspace, file).startsWith("..") ? relative(job.workspace, file) : file;
  const kernels = job.scan ?? (await scanFile(file));
  const kernel = findKernel(kernels, job.kernel);
  if (!kernel) {
    const names = kernels.filter((k) => k.hasBody).map((k) => k.name);
    throw new BenchError(
      "NO_KERNEL",
      `no __global__ kernel '${job.kernel}' in ${shownFile} (kernels: ${names.join(", ") || "none"})`,
    );
  }
  const parsed = parseSpec(kernel);
  if (!parsed)
    throw new BenchError(
      "NO_SPEC",
      `${kernel.name} has no '// @bench' spec above it (the quick fix "Write a benchmark spec" drafts one)`,
    );
  if (parsed.errors.length > 0) throw specError(shownFile, parsed.errors[0]!);
  const prepared = { file, shownFile, kernels, kernel, spec: parsed.spec };
  const issue = checkSignature(prepared.spec, kernel, kernels).find((i) => i.severity === "error");
  if (issue) throw specError(shownFile, issue);
  planSizes(prepared); // the GPU's own limits are checked again once it is known
  return prepared;
}

/** Every size of the sweep, within `device`'s limits when given; a value that cannot launch is BAD_SPEC. */
export function planSizes(prepared: PreparedBench, device?: DeviceAttributes): SizePoint[] {
  try {
    return planPoints(prepared.spec, prepared.kernel, device);
  } catch (e) {
    if (e instanceof SpecError) throw specError(prepared.shownFile, e);
    throw e;
  }
}
