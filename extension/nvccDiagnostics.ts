// nvcc in the loop: on save, compile the file for each target architecture and show what nvcc,
// cudafe++, the host preprocessor and ptxas said, in a DiagnosticCollection of its own ("nvcc"),
// on the right file and line (headers included). Saves are debounced per file; a newer save cancels
// the compile still running for the older one. The results (per-kernel resources) feed the lenses
// and the occupancy panel.
import * as vscode from "vscode";
import {
  compileForArchs,
  mergeDiagnostics,
  projectFlags,
  readTextFile,
  spillWarnings,
  type ArchCompile,
} from "../server/compiler/compileFile";
import { NvccNotFoundError, resolveNvcc } from "../server/compiler/nvcc";
import type { PlacedDiagnostic } from "../server/compiler/nvccPlacement";
import { formatArch, parseArchList } from "../server/lint/arch";
import { resolveTargets } from "../server/lint/targets";

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

export function activate(ctx: vscode.ExtensionContext, log: vscode.LogOutputChannel): CompileService {
  const collection = vscode.languages.createDiagnosticCollection("nvcc");
  const emitter = new vscode.EventEmitter<CompileResults>();
  ctx.subscriptions.push(collection, emitter);

  const latest = new Map<string, CompileResults>();
  const timers = new Map<string, NodeJS.Timeout>();
  const running = new Map<string, AbortController>();
  // Diagnostics per file, per compiled file: a header may collect them from several .cu files.
  const byFile = new Map<string, Map<string, vscode.Diagnostic[]>>();
  let warnedMissingNvcc = false;

  const publish = (main: string, perFile: Map<string, vscode.Diagnostic[]>): void => {
    const touched = new Set<string>(perFile.keys());
    for (const [file, mains] of byFile) if (mains.has(main)) touched.add(file);
    for (const file of touched) {
      let mains = byFile.get(file);
      if (!mains) byFile.set(file, (mains = new Map<string, vscode.Diagnostic[]>()));
      const diags = perFile.get(file);
      if (diags?.length) mains.set(main, diags);
      else mains.delete(main);
      collection.set(vscode.Uri.parse(file), [...mains.values()].flat());
    }
  };

  async function compile(doc: vscode.TextDocument): Promise<CompileResults | undefined> {
    const key = doc.uri.toString();
    running.get(key)?.abort();
    const ac = new AbortController();
    running.set(key, ac);
    const cfg = vscode.workspace.getConfiguration("cudaKernelDev", doc.uri);
    const folder = vscode.workspace.getWorkspaceFolder(doc.uri)?.uri.fsPath;
    try {
      const nvcc = await resolveNvcc(cfg.get<string>("nvcc.path"));
      const flags = projectFlags(
        doc.uri.fsPath,
        {
          includePaths: cfg.get<string[]>("nvcc.includePaths") ?? [],
          extraArgs: cfg.get<string[]>("nvcc.extraArgs") ?? [],
        },
        folder,
      );
      let explicit: number[];
      try {
        explicit = parseArchList(cfg.get<string[]>("targets") ?? []);
      } catch (err) {
        void vscode.window.showWarningMessage(
          `CUDA Kernel Dev: setting cudaKernelDev.targets: ${err instanceof Error ? err.message : String(err)}`,
        );
        return undefined;
      }
      const targets = resolveTargets({
        file: doc.uri.fsPath,
        explicit: { archs: explicit, source: "setting" },
        ...(folder ? { stopAt: folder } : {}),
      });
      const archs = targets.archs.map(formatArch);
      const timeoutMs = Math.max(1, cfg.get<number>("nvcc.timeoutSeconds") ?? 120) * 1000;
      const openText = (f: string): string | undefined =>
        vscode.workspace.textDocuments.find((d) => d.uri.fsPath === f && !d.isDirty)?.getText();
      const started = Date.now();
      const results = await compileForArchs({
        file: doc.uri.fsPath,
        archs,
        nvcc,
        flags,
        timeoutMs,
        signal: ac.signal,
        readText: (f) => openText(f) ?? readTextFile(f),
      });
      if (ac.signal.aborted) return undefined;
      for (const r of results) {
        const errors = r.diagnostics.filter((d) => d.severity === "error").length;
        log.info(
          `nvcc ${r.arch} ${vscode.workspace.asRelativePath(doc.uri)}: exit ${String(r.run.exitCode)}, ${errors} errors, ${r.kernels.length} kernels, ${(r.run.durationMs / 1000).toFixed(1)} s${r.run.timedOut ? " (timed out)" : ""}`,
        );
      }
      const perFile = new Map<string, vscode.Diagnostic[]>();
      for (const d of mergeDiagnostics(results)) {
        const file = vscode.Uri.file(d.file).toString();
        perFile.set(file, [...(perFile.get(file) ?? []), toDiagnostic(d)]);
      }
      for (const r of results.filter((x) => x.run.timedOut)) {
        const d = new vscode.Diagnostic(
          new vscode.Range(0, 0, 0, 0),
          `${r.arch}: nvcc ran past ${timeoutMs / 1000} s and was stopped (setting cudaKernelDev.nvcc.timeoutSeconds)`,
          vscode.DiagnosticSeverity.Warning,
        );
        d.source = "nvcc";
        perFile.set(key, [...(perFile.get(key) ?? []), d]);
      }
      const spills = spillWarnings(doc.uri.fsPath, doc.getText(), results).map(toDiagnostic);
      if (spills.length) perFile.set(key, [...(perFile.get(key) ?? []), ...spills]);
      publish(key, perFile);
      const out: CompileResults = { uri: doc.uri, version: doc.version, archs, results };
      latest.set(key, out);
      emitter.fire(out);
      log.debug(`nvcc check of ${doc.uri.fsPath} took ${Date.now() - started} ms in all`);
      return out;
    } catch (err) {
      if (err instanceof NvccNotFoundError) {
        log.warn(err.message);
        if (!warnedMissingNvcc) {
          warnedMissingNvcc = true;
          void vscode.window
            .showWarningMessage(`CUDA Kernel Dev: ${err.message}`, "Open Settings")
            .then((choice) => {
              if (choice)
                void vscode.commands.executeCommand(
                  "workbench.action.openSettings",
                  "cudaKernelDev.nvcc.path",
                );
            });
        }
        return undefined;
      }
      log.error(
        `nvcc check of ${doc.uri.fsPath} failed: ${err instanceof Error ? err.message : String(err)}`,
      );
      return undefined;
    } finally {
      if (running.get(key) === ac) running.delete(key);
    }
  }

  const schedule = (doc: vscode.TextDocument): void => {
    const key = doc.uri.toString();
    clearTimeout(timers.get(key));
    running.get(key)?.abort(); // a newer save wins over a compile still running
    const delay =
      vscode.workspace.getConfiguration("cudaKernelDev", doc.uri).get<number>("nvcc.debounceMs") ?? 300;
    timers.set(
      key,
      setTimeout(() => {
        timers.delete(key);
        void compile(doc);
      }, delay),
    );
  };

  ctx.subscriptions.push(
    vscode.workspace.onDidSaveTextDocument((doc) => {
      if (doc.languageId !== "cuda-cpp" || doc.uri.scheme !== "file" || !vscode.workspace.isTrusted) return;
      if (!vscode.workspace.getConfiguration("cudaKernelDev", doc.uri).get<boolean>("nvcc.checkOnSave", true))
        return;
      schedule(doc);
    }),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      const key = doc.uri.toString();
      clearTimeout(timers.get(key));
      timers.delete(key);
      running.get(key)?.abort();
    }),
    vscode.commands.registerCommand("cudaKernelDev.compileNow", async () => {
      const doc = vscode.window.activeTextEditor?.document;
      if (!doc || doc.languageId !== "cuda-cpp") {
        void vscode.window.showInformationMessage("CUDA Kernel Dev: open a .cu file to compile it.");
        return;
      }
      if (!vscode.workspace.isTrusted) {
        void vscode.window.showWarningMessage(
          "CUDA Kernel Dev: compiling runs nvcc; trust this workspace first.",
        );
        return;
      }
      if (doc.isDirty) await doc.save();
      await compile(doc);
    }),
    { dispose: () => [...running.values()].forEach((a) => a.abort()) },
  );

  return { onDidCompile: emitter.event, latest: (uri) => latest.get(uri.toString()), compile };
}
