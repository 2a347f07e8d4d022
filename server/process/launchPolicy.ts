// The launcher's two process-wide hooks, apart from the launcher so the extension's entry can install
// a policy without taking in execa or the spawn code: the policy asked before every launch, and the
// observers that see every attempt. They live in one slot on globalThis because each extension bundle
// holds its own copy of server/process/launch.ts; all the copies ask the same policy. With no policy
// installed every launch is refused: a front end says what it allows (the CLI: everything, at start;
// the extension: what Workspace Trust allows, once, in its bundle loader, extension/lazy.ts; the
// language server runs nothing and installs nothing).

export interface LaunchRequest {
  /** What the user would call it, for messages: "nvcc", "ncu", "the GPU runner". */
  tool: string;
  command: string;
  args: readonly string[];
  cwd?: string;
}

export interface LaunchEvent extends LaunchRequest {
  /** "started": spawn was called (it may still fail, e.g. not found); "denied": the policy refused it, nothing was spawned. */
  outcome: "started" | "denied";
  reason?: string;
}

/** true to allow; a sentence saying why not to refuse. */
export type LaunchPolicy = (request: LaunchRequest) => true | string;
export type LaunchObserver = (event: LaunchEvent) => void;

/** What the CLI installs: it runs what its user typed. */
export const allowEveryLaunch: LaunchPolicy = () => true;

interface Hooks {
  policy: LaunchPolicy | undefined;
  observers: Set<LaunchObserver>;
}

const SLOT = Symbol.for("cuda-kernel-dev.launchHooks");

function hooks(): Hooks {
  const g = globalThis as { [SLOT]?: Hooks };
  return (g[SLOT] ??= { policy: undefined, observers: new Set() });
}

/** Sets (or with undefined, removes: every launch is refused again) the policy consulted before every launch. */
export function setLaunchPolicy(p: LaunchPolicy | undefined): void {
  hooks().policy = p;
}

/** The policy's verdict on `request`: true, or why not (also when no policy is installed). */
export function launchVerdict(request: LaunchRequest): true | string {
  const policy = hooks().policy;
  if (policy) return policy(request);
  return `${request.tool} was not run: no launch policy is installed in this process (a front end must install one: the CLI allows every launch, the extension asks Workspace Trust)`;
}

/** Calls `fn` for every launch attempt, allowed or denied; returns a function that removes it. */
export function addLaunchObserver(fn: LaunchObserver): () => void {
  const { observers } = hooks();
  observers.add(fn);
  return () => observers.delete(fn);
}

/** Tells every observer; an observer's bug must not change what happens to the launch. */
export function notifyLaunchObservers(e: LaunchEvent): void {
  for (const fn of hooks().observers) {
    try {
      fn(e);
    } catch {
      // Ignored, as above.
    }
  }
}
