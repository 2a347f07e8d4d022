// The profile panel, shared by the Profile command, the .ncu-rep / ncu CSV custom editors, the
// compare command and Nsight Systems: one panel per key (a kernel's profile, a comparison, a command
// line), hosted by webviewHost.ts. A report opens without its source page; the panel's "Mark hot
// lines" asks for it (ReadHotLines), and the hot lines follow in a `hotLines` message.
import type * as vscode from "vscode";
import { errorMessage } from "../server/util/errorMessage";
import { isReadHotLines, type HostMessage, type MarkedFile } from "../webview/profile/protocol";
import { PanelSet, type PanelOptions, WebviewHost } from "./webviewHost";

/** Reads a report's source page and marks its hot lines in the editor: what was marked, per local file. */
export type HotLinesReader = () => Promise<MarkedFile[]>;

/** Answers a page's ReadHotLines with the reader of the report it shows (asked for when the request comes). */
class HotLinesRequests {
  host: WebviewHost<HostMessage> | undefined;

  constructor(
    private readonly reader: () => HotLinesReader | undefined,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  readonly onRequest = (m: unknown): boolean => {
    if (!isReadHotLines(m)) return false;
    void this.answer();
    return true;
  };

  private async answer(): Promise<void> {
    const host = this.host;
    const read = this.reader();
    const asked = host?.state;
    if (!host || !read || asked?.type !== "profile") return;
    let reply: Extract<HostMessage, { type: "hotLines" }>;
    try {
      reply = { type: "hotLines", hotLines: await read() };
    } catch (e) {
      this.log.error(`profile panel: cannot read the source page: ${errorMessage(e)}`);
      reply = { type: "hotLines", hotLines: [], error: errorMessage(e) };
    }
    // Another report was shown meanwhile: the answer is not its.
    if (host.state !== asked) return;
    // Kept in the state, so a reloaded page shows them; after a failure the page offers to try again.
    if (reply.error === undefined) host.remember({ ...asked, hotLines: reply.hotLines });
    host.post(reply);
  }
}

function options(
  extensionUri: vscode.Uri,
  log: vscode.LogOutputChannel,
  requests: HotLinesRequests,
): PanelOptions {
  return {
    extensionUri,
    log,
    bundle: "profile",
    styles: ["shared", "profile"],
    title: "Profile",
    label: "profile panel",
    onRequest: requests.onRequest,
  };
}

const panels = new PanelSet<HostMessage>();
/** The reader of the report each keyed panel shows (a panel keeps the options it was opened with). */
const readers = new Map<string, HotLinesReader>();

/**
 * The profile page in a panel VS Code made (a custom editor's), showing `initial` until `show`;
 * `reader` gives the hot lines of the report shown, once it is loaded.
 */
export function profileWebview(
  panel: vscode.WebviewPanel,
  extensionUri: vscode.Uri,
  log: vscode.LogOutputChannel,
  initial: HostMessage,
  reader: () => HotLinesReader | undefined = () => undefined,
): WebviewHost<HostMessage> {
  const requests = new HotLinesRequests(reader, log);
  const host = new WebviewHost(panel, options(extensionUri, log, requests), initial);
  requests.host = host;
  return host;
}

/** Opens (or reveals and updates) the panel for `key`; `readHotLines` reads the report's hot lines. */
export function showProfilePanel(
  ctx: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  key: string,
  title: string,
  message: HostMessage,
  readHotLines?: HotLinesReader,
): void {
  if (readHotLines) readers.set(key, readHotLines);
  else readers.delete(key);
  // Only a new panel takes these options (and its requests): an open one keeps its own.
  const opened = !panels.get(key);
  const requests = new HotLinesRequests(() => readers.get(key), log);
  panels.show(key, title, options(ctx.extensionUri, log, requests), message);
  if (!opened) return;
  const host = panels.get(key)!;
  requests.host = host;
  host.panel.onDidDispose(() => readers.delete(key));
}

export function disposePanels(): void {
  panels.dispose();
  readers.clear();
}
