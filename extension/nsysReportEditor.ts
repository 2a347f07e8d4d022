// `*.nsys-rep` (and nsys's `*.sqlite` exports, through "Open With…") open in the Nsight Systems
// panel as a read-only custom editor. A .nsys-rep is exported to SQLite by `nsys export` through
// the one launcher, so it needs a trusted workspace unless a fresh export already lies beside it;
// an .sqlite needs no tool. The export is read in a reader process of its own with a time and
// memory budget (server/profile/nsysReaderClient.ts), so a hostile file leaves the extension host
// free. Progress with cancel while exporting and reading (closing the editor cancels too); the
// reason for a failure is shown in the panel.
import { basename, extname } from "node:path";
import * as vscode from "vscode";
import { findNsys } from "../server/profile/nsysFind";
import { NsysReportError } from "../server/profile/nsysReportDb";
import { loadNsysReport } from "../server/profile/nsysReportLoad";
import { errorMessage } from "../server/util/errorMessage";
import { NSYS_EDITOR, NSYS_SQLITE_EDITOR, type Editors } from "./contributions";
import { NsysPanel } from "./nsysPanel";
import { settings } from "./settings";

/** The command line each report profiled (kept by the Nsight Systems command), by report path. */
const COMMANDS_KEY = "nsys.reportCommands";

export async function rememberCommand(
  ctx: vscode.ExtensionContext,
  report: string,
  line: string,
): Promise<void> {
  const all = ctx.workspaceState.get<Record<string, string>>(COMMANDS_KEY, {});
  // The newest 50 are enough: older reports fall back to profiling the workspace kernel.
  const kept = Object.entries(all).slice(-49);
  await ctx.workspaceState.update(COMMANDS_KEY, Object.fromEntries([...kept, [report, line]]));
}

function commandOf(ctx: vscode.ExtensionContext, report: string): string | null {
  return ctx.workspaceState.get<Record<string, string>>(COMMANDS_KEY, {})[report] ?? null;
}

async function load(
  ctx: vscode.ExtensionContext,
  view: NsysPanel,
  path: string,
  cancel: vscode.CancellationToken[],
  progress: vscode.Progress<{ message?: string }>,
): Promise<void> {
  const ac = new AbortController();
  const listeners = cancel.map((t) => t.onCancellationRequested(() => ac.abort()));
  const trusted = vscode.workspace.isTrusted;
  try {
    const r = await loadNsysReport(path, {
      // Untrusted: no nsys, so only an existing fresh export is read.
      nsysPath: trusted ? findNsys({ configured: settings().nsysPath }) : undefined,
      signal: ac.signal,
      onLine: (l) => {
        if (l.trim()) progress.report({ message: l.trim().slice(0, 80) });
      },
    });
    if (ac.signal.aborted) throw new NsysReportError("cancelled", "CANCELLED");
    view.load(r.summary, r.trace, vscode.workspace.asRelativePath(path), commandOf(ctx, path));
  } catch (e) {
    const untrusted = !trusted && e instanceof NsysReportError && e.code === "NO_NSYS";
    view.fail(
      untrusted
        ? `Reading ${basename(path)} runs nsys export, which needs a trusted workspace: trust this workspace, or open its SQLite export (nsys export --type sqlite).`
        : `Cannot open ${path}: ${errorMessage(e)}`,
    );
  } finally {
    for (const l of listeners) l.dispose();
  }
}

class NsysEditorProvider implements vscode.CustomReadonlyEditorProvider {
  constructor(
    private readonly ctx: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => undefined };
  }

  async resolveCustomEditor(
    doc: vscode.CustomDocument,
    panel: vscode.WebviewPanel,
    token: vscode.CancellationToken,
  ): Promise<void> {
    const path = doc.uri.fsPath;
    const name = basename(path);
    const view = new NsysPanel(panel, this.ctx.extensionUri, this.log, name);
    const exporting = extname(path) !== ".sqlite";
    view.loading(exporting ? `Exporting ${name} with nsys and reading it…` : `Reading ${name}…`);
    // The editor closed while reading: stop the read (and the reader process).
    const closed = new vscode.CancellationTokenSource();
    const onClose = panel.onDidDispose(() => closed.cancel());
    try {
      await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: `Nsight Systems: ${name}`,
          cancellable: true,
        },
        (progress, cancelled) => load(this.ctx, view, path, [token, cancelled, closed.token], progress),
      );
    } finally {
      onClose.dispose();
      closed.dispose();
    }
  }
}

/** The profiling bundle's Nsight Systems report editors: one provider for both. */
export function activate(
  ctx: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
): Editors<typeof NSYS_EDITOR | typeof NSYS_SQLITE_EDITOR> {
  const provider = new NsysEditorProvider(ctx, log);
  return { [NSYS_EDITOR]: provider, [NSYS_SQLITE_EDITOR]: provider };
}
