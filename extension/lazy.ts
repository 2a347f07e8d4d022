// Loading on first use. What activation does not need is in bundles of its own: each
// extension/features/<name>.ts is built as dist/<name>.js (build.mjs) and required the first time
// something needs it, so activating requires only the small entry, dist/extension.js. The first load
// installs the Workspace Trust launch policy, which every bundle's launcher then asks: no bundle can
// run a tool before it, nor has to remember to install it.
import { join } from "node:path";
import type * as vscode from "vscode";
import { guardLaunches } from "./workspaceTrust";

/** The bundles loaded on first use, by name. */
export interface Bundles {
  languageClient: typeof import("./features/languageClient");
  nvcc: typeof import("./features/nvcc");
  profiling: typeof import("./features/profiling");
  bench: typeof import("./features/bench");
}

/** What a bundle's activate is given: the extension's context and its log. */
export interface FeatureHost {
  ctx: vscode.ExtensionContext;
  log: vscode.LogOutputChannel;
}

/** The activations whose policy is installed (one per activation: deactivating removes it). */
const guarded = new WeakSet<vscode.ExtensionContext>();

/** Requires dist/<name>.js (once: node caches it) and logs how long that took. */
export function loadBundle<K extends keyof Bundles>({ ctx, log }: FeatureHost, name: K): Bundles[K] {
  if (!guarded.has(ctx)) {
    guarded.add(ctx);
    guardLaunches(ctx);
  }
  const started = performance.now();
  // A computed path, so esbuild leaves the require to node and the bundle is read only now.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const bundle = require(join(ctx.extensionPath, "dist", `${name}.js`)) as Bundles[K];
  log.info(`loaded dist/${name}.js in ${(performance.now() - started).toFixed(1)} ms`);
  return bundle;
}

/** A value made on first use. */
export class Lazy<T> {
  private value: T | undefined;

  constructor(private readonly make: () => T) {}

  get(): T {
    return (this.value ??= this.make());
  }

  /** The value if something already needed it; never makes it. */
  get loaded(): T | undefined {
    return this.value;
  }
}
