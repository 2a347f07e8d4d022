// Opening existing profiles: `*.ncu-rep` opens in the profile panel as a custom editor (its pages
// exported with the ncu CLI; no GPU needed), ncu CSV exports open the same way through a custom
// editor offered for `*.csv` ("Open With…", priority option) or `cudaKernelDev.openProfile`, and
// `cudaKernelDev.compareProfiles` shows two side by side with per-metric deltas.
import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import { basename, join } from "node:path";
import * as vscode from "vscode";
import { loadProfile, type LoadedProfile } from "../server/profile/loadProfile";
import { compareViews, profileView, type ProfileView } from "../server/profile/profileView";
import { errorMessage } from "../server/util/errorMessage";
import type { HostMessage } from "../webview/profile/protocol";
import {
  COMPARE_COMMAND,
  CSV_EDITOR,
  OPEN_PROFILE_COMMAND,
  REPORT_EDITOR,
  type Commands,
  type Editors,
} from "./contributions";
import type { HotLines } from "./hotLines";
import { profileWebview, showProfilePanel, type HotLinesReader } from "./profilePanel";

export function ncuPath(): string {
  return vscode.workspace.getConfiguration("cudaKernelDev").get<string>("ncu.path") || "ncu";
}

export function views(p: LoadedProfile): ProfileView[] {
  const raw = new Map((p.raw ?? []).map((r) => [r.id, r]));
  return p.details.map((d) => profileView(d, raw.get(d.id)));
}

/** Where a .ncu-rep's exported CSV pages go: a cache keyed by the report's path and modification time. */
function exportDirOf(ctx: vscode.ExtensionContext, report: string): string | undefined {
  if (!report.endsWith(".ncu-rep")) return undefined;
  const key = createHash("sha1")
    .update(`${report}:${statSync(report).mtimeMs}`)
    .digest("hex")
    .slice(0, 16);
  return join(ctx.globalStorageUri.fsPath, "ncu-exports", key);
}

/** The hot lines of a loaded report: its source page read (exported, for a .ncu-rep) now, and marked. */
export function hotLinesReader(loaded: LoadedProfile, hot: HotLines): HotLinesReader {
  return async () => {
    const source = await loaded.loadSource();
    return source ? hot.set(source) : [];
  };
}

/**
 * Loads a .ncu-rep or CSV, without its source page, and turns it into the panel's message; the hot
 * lines are read and marked when the panel asks (`readHotLines`).
 */
export async function profileMessage(
  ctx: vscode.ExtensionContext,
  hot: HotLines,
  path: string,
  signal?: AbortSignal,
): Promise<{ message: HostMessage; readHotLines?: HotLinesReader }> {
  const title = basename(path);
  try {
    const loaded = await loadProfile(path, ncuPath(), exportDirOf(ctx, path), signal, { source: "lazy" });
    return {
      message: {
        type: "profile",
        title,
        file: vscode.workspace.asRelativePath(path),
        launches: views(loaded),
        selected: 0,
        hotLines: null,
      },
      readHotLines: hotLinesReader(loaded, hot),
    };
  } catch (e) {
    return { message: { type: "error", title, message: `Cannot open ${path}: ${errorMessage(e)}` } };
  }
}

class ProfileEditorProvider implements vscode.CustomReadonlyEditorProvider {
  constructor(
    private readonly ctx: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    private readonly hot: HotLines,
  ) {}

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => undefined };
  }

  async resolveCustomEditor(doc: vscode.CustomDocument, panel: vscode.WebviewPanel): Promise<void> {
    // The page may ask for hot lines only once the report is shown: the reader comes with it.
    const shown: { readHotLines?: HotLinesReader } = {};
    const loading: HostMessage = { type: "error", title: basename(doc.uri.fsPath), message: "Loading…" };
    const view = profileWebview(panel, this.ctx.extensionUri, this.log, loading, () => shown.readHotLines);
    const loaded = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `Reading ${basename(doc.uri.fsPath)}` },
      () => profileMessage(this.ctx, this.hot, doc.uri.fsPath),
    );
    if (loaded.message.type === "error") this.log.error(loaded.message.message);
    shown.readHotLines = loaded.readHotLines;
    view.show(loaded.message);
  }
}

async function pickProfile(title: string): Promise<vscode.Uri | undefined> {
  return (
    await vscode.window.showOpenDialog({
      canSelectMany: false,
      title,
      filters: { "Nsight Compute": ["ncu-rep", "csv"] },
      openLabel: "Open profile",
    })
  )?.[0];
}

function uriOf(arg: unknown): vscode.Uri | undefined {
  if (arg instanceof vscode.Uri) return arg;
  if (typeof arg === "string" && arg !== "")
    return arg.includes("://") ? vscode.Uri.parse(arg) : vscode.Uri.file(arg);
  return undefined;
}

async function openProfile(arg: unknown): Promise<void> {
  // With no argument: the CSV in the active text editor, else a file picker.
  const active = vscode.window.activeTextEditor?.document.uri;
  const fromEditor = active?.scheme === "file" && active.fsPath.endsWith(".csv") ? active : undefined;
  const uri = uriOf(arg) ?? fromEditor ?? (await pickProfile("Open an Nsight Compute report or CSV export"));
  if (!uri) return;
  await vscode.commands.executeCommand(
    "vscode.openWith",
    uri,
    uri.fsPath.endsWith(".ncu-rep") ? REPORT_EDITOR : CSV_EDITOR,
  );
}

async function pickLaunch(path: string, list: ProfileView[]): Promise<ProfileView | undefined> {
  if (list.length <= 1) return list[0];
  const item = await vscode.window.showQuickPick(
    list.map((v) => ({
      label: `[${v.id}] ${v.kernel}`,
      description: v.durationNs === null ? "" : `${(v.durationNs / 1e3).toFixed(2)} µs`,
      view: v,
    })),
    { title: `Which launch of ${basename(path)}?` },
  );
  return item?.view;
}

async function compare(
  ctx: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  a: unknown,
  b: unknown,
): Promise<void> {
  const ua = uriOf(a) ?? (await pickProfile("Compare: first profile (A)"));
  if (!ua) return;
  const ub = uriOf(b) ?? (await pickProfile("Compare: second profile (B)"));
  if (!ub) return;
  try {
    // A comparison shows no hot lines: the source pages are never read.
    const [la, lb] = await Promise.all(
      [ua, ub].map((u) =>
        loadProfile(u.fsPath, ncuPath(), exportDirOf(ctx, u.fsPath), undefined, { source: "lazy" }),
      ),
    );
    const va = await pickLaunch(ua.fsPath, views(la!));
    const vb = await pickLaunch(ub.fsPath, views(lb!));
    if (!va || !vb) return;
    const title = `Compare ${basename(ua.fsPath)} ↔ ${basename(ub.fsPath)}`;
    showProfilePanel(ctx, log, `compare:${ua.fsPath}:${ub.fsPath}`, title, {
      type: "compare",
      a: { title: `${basename(ua.fsPath)} [${va.id}]`, view: va },
      b: { title: `${basename(ub.fsPath)} [${vb.id}]`, view: vb },
      deltas: compareViews(va, vb),
    });
  } catch (e) {
    void vscode.window.showErrorMessage(`CUDA Kernel Dev: cannot compare: ${errorMessage(e)}`);
  }
}

/** The profiling bundle's report editor and its commands; the entry registers the editors (extension/lazyFeatures.ts). */
export function activate(
  ctx: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  hot: HotLines,
): {
  editors: Editors<typeof REPORT_EDITOR | typeof CSV_EDITOR>;
  commands: Commands<typeof OPEN_PROFILE_COMMAND | typeof COMPARE_COMMAND>;
} {
  const editor = new ProfileEditorProvider(ctx, log, hot);
  return {
    editors: { [REPORT_EDITOR]: editor, [CSV_EDITOR]: editor },
    commands: {
      [OPEN_PROFILE_COMMAND]: openProfile,
      [COMPARE_COMMAND]: (a, b) => compare(ctx, log, a, b),
    },
  };
}
