// The profile panel's host side, shared by the Profile command, the .ncu-rep / ncu CSV custom
// editors, the compare command and Nsight Systems: a locked-down webview (CSP default-src 'none', a
// fresh nonce per load, scripts only from dist/webview, localResourceRoots = dist/webview) that
// receives its state after it says `ready`. Messages from it are validated; anything else is dropped.
import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import { type HostMessage, isPanelMessage } from "../webview/profile/protocol";
import { profilePageHtml } from "./profilePanelHtml";

export function profileHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, "dist", "webview", "profile.js"));
  return profilePageHtml(webview.cspSource, script.toString(), randomBytes(18).toString("base64"));
}

export const webviewOptions = (extensionUri: vscode.Uri): vscode.WebviewOptions => ({
  enableScripts: true,
  localResourceRoots: [vscode.Uri.joinPath(extensionUri, "dist", "webview")],
});

/** A webview showing one state; `show` replaces it (sent now if the page is ready, else on `ready`). */
export class ProfileWebview {
  private ready = false;
  private message: HostMessage;

  constructor(
    readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
    initial: HostMessage,
  ) {
    this.message = initial;
    panel.webview.options = webviewOptions(extensionUri);
    panel.webview.onDidReceiveMessage((m: unknown) => this.receive(m));
    panel.webview.html = profileHtml(panel.webview, extensionUri);
  }

  show(message: HostMessage): void {
    this.message = message;
    if (this.ready) void this.panel.webview.postMessage(message);
  }

  private receive(m: unknown): void {
    if (!isPanelMessage(m)) {
      this.log.warn("profile panel: dropped a malformed message");
      return;
    }
    if (m.type === "ready") {
      // Also after the panel was hidden and its page reloaded: send the state again.
      this.ready = true;
      void this.panel.webview.postMessage(this.message);
    } else if (m.type === "rendered")
      this.log.info(`profile panel (${m.view}): drew ${m.charts.join(", ") || "no charts"}`);
    else this.log.error(`profile panel failed to render: ${m.message}`);
  }
}

const panels = new Map<string, ProfileWebview>();

/** Opens (or reveals and updates) the panel for `key`. */
export function showProfilePanel(
  ctx: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  key: string,
  title: string,
  message: HostMessage,
): void {
  const existing = panels.get(key);
  if (existing) {
    existing.panel.title = title;
    existing.show(message);
    existing.panel.reveal(undefined, true);
    return;
  }
  const panel = vscode.window.createWebviewPanel(
    "cudaKernelDev.profile",
    title,
    { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
    webviewOptions(ctx.extensionUri),
  );
  panels.set(key, new ProfileWebview(panel, ctx.extensionUri, log, message));
  panel.onDidDispose(() => panels.delete(key));
}

export function disposePanels(): void {
  for (const p of panels.values()) p.panel.dispose();
}
