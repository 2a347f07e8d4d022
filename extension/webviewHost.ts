// The one host for every panel's webview (benchmark results, profile, Occupancy, and the profile
// custom editors): a locked-down page (webviewHostHtml.ts: CSP default-src 'none', a fresh nonce per
// load, script and stylesheet only from dist/webview, localResourceRoots = dist/webview) that says
// `ready` and is then sent its state, again after every reload. What the page says back passes the
// shared guard first; anything else is dropped.
import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import { isPanelMessage } from "../webview/shared/protocol";
import { webviewHtml } from "./webviewHostHtml";

export interface PanelOptions {
  extensionUri: vscode.Uri;
  log: vscode.LogOutputChannel;
  /** The page's script, dist/webview/<bundle>.js (built from webview/<bundle>/); view type cudaKernelDev.<bundle>. */
  bundle: "bench" | "occupancy" | "profile" | "nsys";
  /** Its stylesheets, dist/webview/<name>.css (copied from webview/<name>/<name>.css), in cascade order. */
  styles: ("shared" | PanelOptions["bundle"])[];
  /** The page's title. */
  title: string;
  /** Names the panel in the log. */
  label: string;
  /** The panel's own requests (the Nsight Systems timeline's windows and kernel actions): true when its guard took `m`. */
  onRequest?: (m: unknown) => boolean;
}

function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  const root = vscode.Uri.joinPath(extensionUri, "dist", "webview");
  return { enableScripts: true, localResourceRoots: [root] };
}

/** A webview showing one state of type `M`; `show` replaces it (sent now if the page is ready, else on `ready`). */
export class WebviewHost<M> {
  private ready = false;
  private readonly log: vscode.LogOutputChannel;
  private readonly label: string;
  private readonly onRequest: ((m: unknown) => boolean) | undefined;

  /** Hosts the page in `panel`: one `open` created, or a custom editor's. */
  constructor(
    readonly panel: vscode.WebviewPanel,
    options: PanelOptions,
    private message: M,
  ) {
    this.log = options.log;
    this.label = options.label;
    this.onRequest = options.onRequest;
    const webview = panel.webview;
    webview.options = webviewOptions(options.extensionUri);
    const listener = webview.onDidReceiveMessage((m: unknown) => this.receive(m));
    panel.onDidDispose(() => {
      listener.dispose();
    });
    const asset = (file: string): string =>
      webview.asWebviewUri(vscode.Uri.joinPath(options.extensionUri, "dist", "webview", file)).toString();
    webview.html = webviewHtml({
      title: options.title,
      cspSource: webview.cspSource,
      scriptUri: asset(`${options.bundle}.js`),
      styleUris: options.styles.map((name) => asset(`${name}.css`)),
      nonce: randomBytes(18).toString("base64"),
    });
  }

  /** Opens a panel titled `title` beside the active editor, keeping the focus where it is. */
  static open<M>(title: string, options: PanelOptions, message: M): WebviewHost<M> {
    const panel = vscode.window.createWebviewPanel(
      `cudaKernelDev.${options.bundle}`,
      title,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      webviewOptions(options.extensionUri),
    );
    return new WebviewHost(panel, options, message);
  }

  /** The state shown (or to be shown once the page is ready). */
  get state(): M {
    return this.message;
  }

  show(message: M): void {
    this.message = message;
    if (this.ready) void this.panel.webview.postMessage(message);
  }

  /** Replaces the state without sending it: the page was told of the change by a reply (`post`). */
  remember(message: M): void {
    this.message = message;
  }

  /** Sends a reply that is not the panel's state (not sent again on `ready`); dropped while the page loads. */
  post(message: M): void {
    if (this.ready) void this.panel.webview.postMessage(message);
  }

  /** Closes the panel (its listener goes with it). */
  dispose(): void {
    this.panel.dispose();
  }

  private receive(m: unknown): void {
    if (!isPanelMessage(m)) {
      if (this.onRequest?.(m)) return;
      this.log.warn(`${this.label}: dropped a malformed message`);
      return;
    }
    if (m.type === "ready") {
      // Also after the panel was hidden and its page reloaded: send the state again.
      this.ready = true;
      void this.panel.webview.postMessage(this.message);
    } else if (m.type === "rendered") {
      const view = m.view === undefined ? "" : ` (${m.view})`;
      this.log.info(`${this.label}${view}: drew ${m.charts.join(", ") || "no charts"}`);
    } else this.log.error(`${this.label} failed to render: ${m.message}`);
  }
}

/** Panels of one kind, one per key (a kernel, a report): shown again, a key's panel is revealed and updated. */
export class PanelSet<M> {
  private readonly hosts = new Map<string, WebviewHost<M>>();

  get(key: string): WebviewHost<M> | undefined {
    return this.hosts.get(key);
  }

  show(key: string, title: string, options: PanelOptions, message: M): void {
    const existing = this.hosts.get(key);
    if (existing) {
      existing.panel.title = title;
      existing.show(message);
      existing.panel.reveal(undefined, true);
      return;
    }
    const host = WebviewHost.open(title, options, message);
    this.hosts.set(key, host);
    host.panel.onDidDispose(() => this.hosts.delete(key));
  }

  dispose(): void {
    for (const h of this.hosts.values()) h.dispose();
  }
}
