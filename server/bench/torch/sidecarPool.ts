// The PyTorch sidecars a long-lived process keeps between benchmark runs (the extension host: importing
// torch and setting up CUDA takes seconds, more than the rest of a warm sweep). A run takes the live
// sidecar for its Python, sidecar script and GPU, or starts one through the launcher as before (the
// trust gate and the one spawn path are unchanged: a sidecar is only ever started by SidecarProcess);
// at the run's end it is released rather than closed: it frees what the run left on the GPU
// (`{"release": true}`, torchProtocol.ts) and waits, idle, for the next run, until `keepAliveMs` pass
// without one. A cancelled run, a sidecar that does not answer its release, one that died, and one
// whose run found no torch are not kept. At most one is kept idle; dispose() kills every one.
// The CLI has no pool: its process ends with its run, and so does its sidecar.
import { SidecarProcess } from "./sidecarProcess";
import type { Released } from "./torchProtocol";

/** cudaKernelDev.python.keepAliveSeconds' default. */
export const DEFAULT_KEEP_ALIVE_SECONDS = 300;
/** gc and empty_cache take milliseconds; a sidecar silent this long after the end of a run is stuck. */
const RELEASE_TIMEOUT_MS = 3000;

/** How a run ends its lease. */
export interface ReleaseOptions {
  /** Keep it for the next run (false: the run was cancelled, or found no torch): closed or killed now. */
  keep: boolean;
  /** Cancelled: killed, not asked to exit. */
  cancelled?: boolean;
}

export interface SidecarPoolOptions {
  /** 0: a sidecar per run, closed at its end (as with no pool). */
  keepAliveMs?: number;
  /** Each release a sidecar answered (the extension logs it; the GPU test checks the memory). */
  onReleased?: (r: Released & { pid: number | undefined }) => void;
}

interface Idle {
  key: string;
  sidecar: SidecarProcess;
  timer: NodeJS.Timeout;
}

export class SidecarPool {
  keepAliveMs: number;
  private idle: Idle | undefined;
  private readonly leased = new Set<SidecarProcess>();
  private disposed = false;

  constructor(private readonly options: SidecarPoolOptions = {}) {
    this.keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_SECONDS * 1000;
  }

  /** The idle sidecar for `key` if it is alive, else a new one from `start` (an idle one of another key is closed). */
  acquire(key: string, start: () => SidecarProcess): SidecarProcess {
    const idle = this.takeIdle();
    let sidecar: SidecarProcess;
    if (idle?.key === key && idle.sidecar.alive) sidecar = idle.sidecar;
    else {
      if (idle) void idle.sidecar.close();
      sidecar = start();
    }
    this.leased.add(sidecar);
    return sidecar;
  }

  /** A leased sidecar that died, replaced by a new one from `start`. */
  replace(dead: SidecarProcess, start: () => SidecarProcess): SidecarProcess {
    this.leased.delete(dead);
    void dead.kill();
    const sidecar = start();
    this.leased.add(sidecar);
    return sidecar;
  }

  /** The end of a run's lease: the sidecar is kept idle for the next run, or closed. */
  async release(key: string, sidecar: SidecarProcess, o: ReleaseOptions): Promise<void> {
    this.leased.delete(sidecar);
    if (o.cancelled) return sidecar.kill();
    if (!o.keep || this.disposed || this.keepAliveMs <= 0 || !sidecar.alive) return sidecar.close();
    if (!(await this.freed(sidecar))) return sidecar.kill();
    // Disposed, or another run kept one, while this one was answering: one idle sidecar at most.
    if (this.disposed || this.idle || !sidecar.alive) return sidecar.close();
    const timer = setTimeout(() => {
      if (this.idle?.sidecar === sidecar) this.idle = undefined;
      void sidecar.close();
    }, this.keepAliveMs);
    timer.unref(); // an idle sidecar never keeps its owner's process alive
    this.idle = { key, sidecar, timer };
  }

  /** Asks the sidecar to free what the run left; false when it did not answer as it should. */
  private async freed(sidecar: SidecarProcess): Promise<boolean> {
    if (!sidecar.asked) return true; // the run never used it: nothing to free (it may still be importing torch)
    const reply = await sidecar.ask(JSON.stringify({ release: true }), RELEASE_TIMEOUT_MS);
    if (!("line" in reply)) return false;
    try {
      const r = JSON.parse(reply.line) as { released?: Released };
      if (!r.released) return false;
      this.options.onReleased?.({ ...r.released, pid: sidecar.pid });
      return true;
    } catch {
      return false;
    }
  }

  private takeIdle(): Idle | undefined {
    const idle = this.idle;
    if (idle) clearTimeout(idle.timer);
    this.idle = undefined;
    return idle;
  }

  /** Closes the idle sidecar, if any (the Python setting changed). */
  closeIdle(): Promise<void> {
    return this.takeIdle()?.sidecar.close() ?? Promise.resolve();
  }

  /** Every sidecar killed, idle or leased; none is started or kept afterwards. */
  async dispose(): Promise<void> {
    this.disposed = true;
    const all = [...this.leased, ...[this.takeIdle()?.sidecar].filter((s) => s !== undefined)];
    this.leased.clear();
    await Promise.all(all.map((s) => s.kill()));
  }
}
