// The per-document context: settings pulled from the client per document (they may differ per folder),
// the workspace's .cuda-kernel-dev.toml and the target architectures; cached per URI until settings,
// build files or the config file change. The targets in force are announced to the client.
import { DidChangeConfigurationNotification } from "vscode-languageserver/node";
import { formatArch } from "../lint/arch";
import { configFor } from "../lint/config";
import { readSettings } from "../lint/settings";
import { describeContext, resolveBuildContext } from "../lint/buildContext";
import { machineGpuNotification, targetsNotification, type TargetsParams } from "../protocol";
import { rules } from "../rules/index";
import type { DocumentContext, ServerContext } from "./context";
import { filePath } from "./convert";

const knownRules = new Set(rules.map((r) => r.id));

/** The settings cache: one pending or resolved context per document URI. */
export class DocumentContexts {
  private readonly cache = new Map<string, Promise<DocumentContext>>();
  /** The targets notification last sent per URI, so an unchanged one is not sent again. */
  private readonly announced = new Map<string, string>();

  constructor(private readonly ctx: ServerContext) {}

  get(uri: string): Promise<DocumentContext> {
    let pending = this.cache.get(uri);
    if (!pending) {
      pending = this.resolve(uri);
      // A failed pull is retried next time instead of being cached.
      pending.catch(() => this.cache.delete(uri));
      this.cache.set(uri, pending);
    }
    return pending;
  }

  clear(): void {
    this.cache.clear();
  }

  forget(uri: string): void {
    this.cache.delete(uri);
    this.announced.delete(uri);
  }

  announceTargets(uri: string, dc: DocumentContext): void {
    const notes = [...dc.targets.notes, ...dc.settings.problems, ...dc.config.problems];
    const params: TargetsParams = {
      uri,
      archs: dc.targets.archs.map(formatArch),
      source: dc.targets.source,
      ...(dc.targets.file ? { file: dc.targets.file } : {}),
      ...(notes.length > 0 ? { notes } : {}),
      context: describeContext(dc.build, this.workspaceRootOf(dc.build.file)),
    };
    const key = JSON.stringify(params);
    if (this.announced.get(uri) === key) return;
    this.announced.set(uri, key);
    void this.ctx.connection.sendNotification(targetsNotification, params);
  }

  private async resolve(uri: string): Promise<DocumentContext> {
    const { ctx } = this;
    const raw: unknown = ctx.canPullConfiguration
      ? await ctx.connection.workspace.getConfiguration({ scopeUri: uri, section: "cudaKernelDev" })
      : ctx.pushedSettings;
    const settings = readSettings(raw, knownRules);
    const path = filePath(uri);
    const root = path ? this.workspaceRootOf(path) : undefined;
    const config = path
      ? configFor(path, knownRules, root)
      : { severity: {}, launchCheckMacros: [], problems: [] };
    const explicit =
      settings.targets.length > 0 ? { archs: settings.targets, source: "setting" as const } : undefined;
    // Untitled documents have no folder to search: only the setting or the default apply.
    const build = resolveBuildContext({
      file: path ?? "/nonexistent/untitled.cu",
      explicit,
      stopAt: path ? root : "/",
      ...(ctx.machineGpuArch !== undefined ? { gpuArch: ctx.machineGpuArch } : {}),
    });
    return { settings, config, targets: build.targets, build, root };
  }

  private workspaceRootOf(path: string): string | undefined {
    return this.ctx.workspaceRoots
      .filter((r) => path === r || path.startsWith(r.endsWith("/") ? r : `${r}/`))
      .sort((a, b) => b.length - a.length)[0];
  }
}

export function register(ctx: ServerContext): void {
  const { connection } = ctx;
  /** Settings, build files or the config file changed: every open document re-resolves and relints. */
  const invalidateAll = (): void => {
    ctx.contexts.clear();
    ctx.linter.relintAll();
  };
  connection.onDidChangeConfiguration((change) => {
    ctx.guard("didChangeConfiguration", undefined, () => {
      const s: unknown = change.settings;
      if (s !== null && typeof s === "object" && "cudaKernelDev" in s) ctx.pushedSettings = s.cudaKernelDev;
      invalidateAll();
    });
  });
  connection.onDidChangeWatchedFiles(() => ctx.guard("didChangeWatchedFiles", undefined, invalidateAll));
  connection.onNotification(machineGpuNotification, (p: unknown) =>
    ctx.guard("machineGpu", undefined, () => {
      // Untyped on the wire: only a plausible SM number is taken.
      const arch = p !== null && typeof p === "object" && "arch" in p ? p.arch : undefined;
      if (typeof arch !== "number" || !Number.isInteger(arch) || arch < 30 || arch > 200) return;
      if (ctx.machineGpuArch === arch) return;
      ctx.machineGpuArch = arch;
      invalidateAll();
    }),
  );
  ctx.onDidClose.event((uri) => ctx.contexts.forget(uri));
  // A client that answers workspace/configuration is asked to say when the settings change.
  void ctx.initialized.then(() => {
    if (ctx.canPullConfiguration)
      void connection.client
        .register(DidChangeConfigurationNotification.type, { section: "cudaKernelDev" })
        .catch(() => undefined);
  });
}
