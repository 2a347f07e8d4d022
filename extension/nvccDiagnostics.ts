// nvcc in the loop: on save, compile the file for each target architecture and show what nvcc,
// cudafe++, the host preprocessor and ptxas said, in a DiagnosticCollection of its own ("nvcc"),
// on the right file and line (headers included). Saves are debounced per file; a newer save cancels
// the compile still running for the older one. The results (per-kernel resources) feed the lenses
// and the occupancy panel.
import * as vscode from "vscode";
import {
  compileForArchs,
  mergeDiagnostics,
  readTextFile,
  spillWarnings,
  type ArchCompile,
} from "../server/compiler/compileFile";
import { NvccNotFoundError } from "../server/compiler/nvcc";
import type { PlacedDiagnostic } from "../server/compiler/nvccPlacement";
import { errorMessage } from "../server/util/errorMessage";
import { COMPILE_NOW_COMMAND, type Commands } from "./contributions";
import { nvccSetup, openSettings, settings, targetArchs, type NvccSetup } from "./settings";
import { requireTrust } from "./workspaceTrust";

export interface CompileResults {
  uri: vscode.Uri;
  /** The document version that was compiled (it was saved, so the text on disk). */
  version: number;
  archs: string[];
  results: ArchCompile[];
}

export interface CompileService {
  readonly onDidCompile: vscode.Event<CompileResults>;
  latest(uri: vscode.Uri): CompileResults | undefined;
  /** Compiles now (no debounce), cancelling a compile of the same file in flight. */
  compile(doc: vscode.TextDocument): Promise<CompileResults | undefined>;
}

const SEVERITY: Record<PlacedDiagnostic["severity"], vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  remark: vscode.DiagnosticSeverity.Information,
  note: vscode.DiagnosticSeverity.Information,
};

const toRange = (r: PlacedDiagnostic["range"]): vscode.Range =>
  new vscode.Range(r.startLine, r.startColumn, r.endLine, r.endColumn);

function toDiagnostic(d: PlacedDiagnostic): vscode.Diagnostic {
  const diag = new vscode.Diagnostic(toRange(d.range), d.message, SEVERITY[d.severity]);
  diag.source = d.source === "ptxas" ? "ptxas" : "nvcc";
  if (d.code !== undefined) diag.code = d.code;
  if (d.related.length)
    diag.relatedInformation = d.related.map(
      (r) =>
        new vscode.DiagnosticRelatedInformation(
          new vscode.Location(vscode.Uri.file(r.file), toRange(r.range)),
          r.message,
        ),
    );
  return diag;
}

/** Diagnostics of each compiled file, kept per file they land on (a header collects them from several .cu files). */
class DiagnosticsByFile implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection("nvcc");
  private readonly byFile = new Map<string, Map<string, vscode.Diagnostic[]>>();

  /** Replaces what compiling `main` said, on every file it said something about, before or now. */
  publish(main: string, perFile: Map<string, vscode.Diagnostic[]>): void {
    const touched = new Set<string>(perFile.keys());
    for (const [file, mains] of this.byFile) if (mains.has(main)) touched.add(file);
    for (const file of touched) {
      let mains = this.byFile.get(file);
      if (!mains) this.byFile.set(file, (mains = new Map<string, vscode.Diagnostic[]>()));
      const diags = perFile.get(file);
      if (diags?.length) mains.set(main, diags);
      else mains.delete(main);
      this.collection.set(vscode.Uri.parse(file), [...mains.values()].flat());
    }
  }

  dispose(): void {
    this.collection.dispose();
  }
}

/** The diagnostics of one compile, per file (URI string): nvcc's and ptxas's, timeouts, spills. */
function diagnosticsOf(
  doc: vscode.TextDocument,
  results: ArchCompile[],
  timeoutMs: number,
): Map<string, vscode.Diagnostic[]> {
  const key = doc.uri.toString();
  const perFile = new Map<string, vscode.Diagnostic[]>();
  const add = (file: string, ds: vscode.Diagnostic[]): void => {
    if (ds.length) perFile.set(file, [...(perFile.get(file) ?? []), ...ds]);
  };
  for (const d of mergeDiagnostics(results)) add(vscode.Uri.file(d.file).toString(), [toDiagnostic(d)]);
  for (const r of results.filter((x) => x.run.timedOut)) {
    const d = new vscode.Diagnostic(
      new vscode.Range(0, 0, 0, 0),
      `${r.arch}: nvcc ran past ${timeoutMs / 1000} s and was stopped (setting cudaKernelDev.nvcc.timeoutSeconds)`,
      vscode.DiagnosticSeverity.Warning,
    );
    d.source = "nvcc";
    add(key, [d]);
  }
  add(key, spillWarnings(doc.uri.fsPath, doc.getText(), results).map(toDiagnostic));
  return perFile;
}

/** The nvcc check: compiles on save (debounced per file) or on demand, and publishes what nvcc said. */
export class NvccChecks implements CompileService, vscode.Disposable {
  private readonly diagnostics = new DiagnosticsByFile();
  private readonly emitter = new vscode.EventEmitter<CompileResults>();
  readonly onDidCompile = this.emitter.event;
  private readonly results = new Map<string, CompileResults>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly running = new Map<string, AbortController>();
  private warnedMissingNvcc = false;

  constructor(private readonly log: vscode.LogOutputChannel) {}

  latest(uri: vscode.Uri): CompileResults | undefined {
    return this.results.get(uri.toString());
  }

  async compile(doc: vscode.TextDocument): Promise<CompileResults | undefined> {
    const key = doc.uri.toString();
    this.running.get(key)?.abort();
    const ac = new AbortController();
    this.running.set(key, ac);
    try {
      const prepared = await this.prepare(doc);
      if (!prepared) return undefined;
      const started = Date.now();
      const results = await this.run(doc, prepared, ac.signal);
      if (ac.signal.aborted) return undefined;
      this.diagnostics.publish(key, diagnosticsOf(doc, results, prepared.timeoutMs));
      const out: CompileResults = { uri: doc.uri, version: doc.version, archs: prepared.archs, results };
      this.results.set(key, out);
      this.emitter.fire(out);
      this.log.debug(`nvcc check of ${doc.uri.fsPath} took ${Date.now() - started} ms in all`);
      return out;
    } catch (err) {
      this.failed(doc, err);
      return undefined;
    } finally {
      if (this.running.get(key) === ac) this.running.delete(key);
    }
  }

  /** nvcc, the flags and the target architectures; undefined (after a warning) for a bad targets setting. */
  private async prepare(doc: vscode.TextDocument): Promise<(NvccSetup & { archs: string[] }) | undefined> {
    const setup = await nvccSetup(doc.uri);
    try {
      return { ...setup, archs: targetArchs(doc.uri) };
    } catch (err) {
      void vscode.window.showWarningMessage(
        `CUDA Kernel Dev: setting cudaKernelDev.targets: ${errorMessage(err)}`,
      );
      return undefined;
    }
  }

  private async run(
    doc: vscode.TextDocument,
    { nvcc, flags, timeoutMs, archs }: NvccSetup & { archs: string[] },
    signal: AbortSignal,
  ): Promise<ArchCompile[]> {
    // Placing ranges reads each file: an open, saved editor's text is the disk's, without a read.
    const openText = (f: string): string | undefined =>
      vscode.workspace.textDocuments.find((d) => d.uri.fsPath === f && !d.isDirty)?.getText();
    const results = await compileForArchs({
      file: doc.uri.fsPath,
      archs,
      nvcc,
      flags,
      timeoutMs,
      signal,
      readText: (f) => openText(f) ?? readTextFile(f),
    });
    for (const r of results) {
      const errors = r.diagnostics.filter((d) => d.severity === "error").length;
      this.log.info(
        `nvcc ${r.arch} ${vscode.workspace.asRelativePath(doc.uri)}: exit ${String(r.run.exitCode)}, ${errors} errors, ${r.kernels.length} kernels, ${(r.run.durationMs / 1000).toFixed(1)} s${r.run.timedOut ? " (timed out)" : ""}`,
      );
    }
    return results;
  }

  /** A missing nvcc is said once per session (with the way to the setting); other failures go to the log. */
  private failed(doc: vscode.TextDocument, err: unknown): void {
    if (!(err instanceof NvccNotFoundError)) {
      this.log.error(`nvcc check of ${doc.uri.fsPath} failed: ${errorMessage(err)}`);
      return;
    }
    this.log.warn(err.message);
    if (this.warnedMissingNvcc) return;
    this.warnedMissingNvcc = true;
    void vscode.window
      .showWarningMessage(`CUDA Kernel Dev: ${err.message}`, "Open Settings")
      .then((choice) => choice && openSettings("cudaKernelDev.nvcc.path"));
  }

  /** Compiles after the debounce; a newer save wins over a compile still running. */
  schedule(doc: vscode.TextDocument): void {
    const key = doc.uri.toString();
    clearTimeout(this.timers.get(key));
    this.running.get(key)?.abort();
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        void this.compile(doc);
      }, settings(doc.uri).nvcc.debounceMs),
    );
  }

  onClose(doc: vscode.TextDocument): void {
    const key = doc.uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    this.running.get(key)?.abort();
  }

  /** `cudaKernelDev.compileNow`: the active .cu file, saved, compiled without waiting. */
  async compileNow(): Promise<void> {
    const doc = vscode.window.activeTextEditor?.document;
    if (!doc || doc.languageId !== "cuda-cpp") {
      void vscode.window.showInformationMessage("CUDA Kernel Dev: open a .cu file to compile it.");
      return;
    }
    if (!requireTrust("compiling runs nvcc")) return;
    if (doc.isDirty) await doc.save();
    await this.compile(doc);
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    for (const a of this.running.values()) a.abort();
    this.diagnostics.dispose();
    this.emitter.dispose();
  }
}

/** The nvcc bundle's half: the checks and their command. Saves reach them from the entry (extension/lazyFeatures.ts). */
export function activate(
  ctx: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
): { checks: NvccChecks; commands: Commands<typeof COMPILE_NOW_COMMAND> } {
  const checks = new NvccChecks(log);
  ctx.subscriptions.push(
    checks,
    vscode.workspace.onDidCloseTextDocument((doc) => checks.onClose(doc)),
  );
  return { checks, commands: { [COMPILE_NOW_COMMAND]: () => checks.compileNow() } };
}
