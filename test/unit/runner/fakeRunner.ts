// A stand-in for dist/runner.js that misbehaves on request, to test the client's process handling
// without a GPU. It speaks the real protocol; what it does depends on the method and, for
// "benchmark", on params.kernel.displayName: ok | answer | crash | hang | hang-ignore-term | sticky |
// progress | progress-on-signal.
import { writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import type {
  RequestMessage,
  ResponseMessage,
  ProgressMessage,
  BenchmarkRequest,
  BenchmarkResult,
} from "../../../native/runner/protocol";

/** What mode "answer" returns: a result of one sample. */
const fakeResult: BenchmarkResult = {
  device: "fake GPU",
  kernel: {
    samples: 1,
    medianNs: 1000,
    minNs: 1000,
    maxNs: 1000,
    meanNs: 1000,
    stdevNs: 0,
    rsdPct: 0,
    stoppedBy: "maxSamples",
  },
  checks: [],
};

const send = (msg: ResponseMessage | ProgressMessage) => process.stdout.write(`${JSON.stringify(msg)}\n`);

// With FAKE_RUNNER_EXIT_MARKER set, an exit at the end of stdin (not a signal) leaves that file behind.
const lines = createInterface({ input: process.stdin });
lines.on("close", () => {
  const marker = process.env.FAKE_RUNNER_EXIT_MARKER;
  if (marker) writeFileSync(marker, "exited at the end of stdin\n");
  process.exit(0);
});
lines.on("line", (line) => {
  const { id, method, params } = JSON.parse(line) as RequestMessage;
  if (method === "hello") return send({ id, result: { pid: process.pid, driverVersion: null } });
  if (method === "devices") {
    process.stderr.write("boom: fake runner crashing on purpose\n");
    process.exit(7);
  }
  if (method !== "benchmark")
    return send({ id, error: { code: "BAD_REQUEST", message: `unknown ${method}` } });
  const req = params as BenchmarkRequest;
  const mode = req.kernel.displayName;
  if (mode === "ok") return send({ id, error: { code: "OK", message: "answered" } });
  if (mode === "answer") return send({ id, result: fakeResult });
  if (mode === "crash") {
    process.stderr.write("boom: fake runner crashing in a benchmark\n");
    process.exit(7);
  }
  if (mode === "hang") return; // never answers, like a kernel stuck in an endless loop
  if (mode === "hang-ignore-term") {
    process.on("SIGTERM", () => process.stderr.write("ignoring SIGTERM\n"));
    setInterval(() => undefined, 1000);
    return;
  }
  if (mode === "sticky") {
    send({
      id,
      error: {
        code: "CUDA_ERROR_ILLEGAL_ADDRESS",
        call: "cuCtxSynchronize",
        kernel: mode,
        message: "an illegal memory access was encountered",
        sticky: true,
      },
    });
    process.exit(3);
  }
  if (mode === "progress-on-signal") {
    // A progress tick now and one per SIGUSR2 (the test's clock decides when), answering at minSamples.
    // The handler comes first: the test signals as soon as it reads the first tick, which can be before
    // this process runs its next line on a loaded machine (SIGUSR2's default action ends the process).
    let ticks = 1;
    process.on("SIGUSR2", () => {
      if (++ticks < req.timing.minSamples)
        return send({ id, progress: { phase: "sampling", samples: ticks } });
      send({ id, error: { code: "OK", message: `answered after ${ticks} ticks` } });
    });
    send({ id, progress: { phase: "sampling", samples: ticks } });
    return;
  }
  if (mode === "progress") {
    // minSamples progress ticks, budgetMs apart, then an answer.
    let ticks = 0;
    const timer = setInterval(() => {
      ticks++;
      if (ticks < req.timing.minSamples) return send({ id, progress: { phase: "sampling", samples: ticks } });
      clearInterval(timer);
      send({ id, error: { code: "OK", message: `answered after ${ticks} ticks` } });
    }, req.timing.budgetMs);
  }
});
