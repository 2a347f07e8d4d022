// What the PyTorch baseline's unit tests share (torchBaseline.test.ts, sidecarPool.test.ts): a fake
// runner at the protocol boundary and fake "python"s, shell scripts standing in for what cannot run
// here (torch on a GPU).
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BenchmarkRequest } from "../../../native/runner/protocol";
import type { BenchRunner } from "../../../server/bench/runBench";
import { emptyAnswer, h200 } from "./fakeRunner";
import { tempDir } from "../../support/tempDir";

export { h200 };

export const cacheDir = tempDir("ckd-cubin-");
export const dir = tempDir("ckd-fake-python-");

/** A runner at the protocol boundary: the kernel measured at 10 µs, the requests kept. */
export function fakeRunner(benchmarks: BenchmarkRequest[] = []): BenchRunner {
  const stats = { samples: 10, medianNs: 10_000, minNs: 9900, maxNs: 10_100, meanNs: 10_000, stdevNs: 30 };
  const answers: Record<string, (params: unknown) => unknown> = {
    hello: () => ({ pid: 1, driverVersion: 13000 }),
    devices: () => [h200],
    benchmark: (params) => {
      const empty = emptyAnswer(params as BenchmarkRequest);
      if (empty) return empty;
      benchmarks.push(params as BenchmarkRequest);
      return { device: h200.name, kernel: { ...stats, rsdPct: 0.3, stoppedBy: "rsd" }, checks: [] };
    },
  };
  return { request: (method, params) => Promise.resolve(answers[method]!(params) as never) };
}

/**
 * A stand-in for python: runs `start` (sh), then for each request line on stdin saves it (the last
 * one in NAME.request.json, all of them in NAME.requests) and runs `body`, which answers it.
 */
export function fakePython(name: string, body: string, start = ""): string {
  const path = join(dir, name);
  const save = `printf '%s\\n' "$line" > "${dir}/${name}.request.json"; printf '%s\\n' "$line" >> "${dir}/${name}.requests"`;
  writeFileSync(path, `#!/bin/sh\n${start}\nwhile IFS= read -r line; do\n${save}\n${body}\ndone\n`);
  chmodSync(path, 0o755);
  return path;
}

export const okAnswer = (pass: boolean) =>
  JSON.stringify({
    checks: [
      {
        arg: "out",
        pass,
        elements: 65536,
        mismatches: pass ? 0 : 65536,
        maxAbsErr: pass ? 0 : 1e-3,
        maxRelErr: 0,
        cosine: 1,
      },
    ],
    eager: {
      samples: 20,
      medianNs: 25_000,
      minNs: 24_000,
      maxNs: 26_000,
      meanNs: 25_000,
      stdevNs: 100,
      rsdPct: 0.4,
      stoppedBy: "rsd",
    },
    compiled: {
      samples: 20,
      medianNs: 12_500,
      minNs: 12_000,
      maxNs: 13_000,
      meanNs: 12_500,
      stdevNs: 50,
      rsdPct: 0.4,
      stoppedBy: "rsd",
    },
    torchVersion: "2.11.0",
  });
