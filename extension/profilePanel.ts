// The profile panel's host side, shared by the Profile command, the .ncu-rep / ncu CSV custom
// editors, the compare command and Nsight Systems: a locked-down webview (CSP default-src 'none', a
// fresh nonce per load, scripts only from dist/webview, localResourceRoots = dist/webview) that
// receives its state after it says `ready`. Messages from it are validated; anything else is dropped.
import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import { type HostMessage, isPanelMessage } from "../webview/profile/protocol";

const STYLE = `
body { color: var(--vscode-foreground); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); padding: 0 16px 24px; }
h1 { font-size: 1.2em; font-family: var(--vscode-editor-font-family); word-break: break-all; }
h2 { font-size: 1.05em; margin: 16px 0 4px; } h3 { font-size: 0.95em; margin: 4px 0; font-weight: normal; opacity: 0.85; }
dl { display: grid; grid-template-columns: max-content auto; gap: 2px 12px; margin: 0 0 8px; }
dt { opacity: 0.7; } dd { margin: 0; font-family: var(--vscode-editor-font-family); }
.duration { font-size: 1.3em; } .toolbar { display: flex; gap: 12px; align-items: center; margin: 8px 0; flex-wrap: wrap; }
.file, .kernel { font-family: var(--vscode-editor-font-family); opacity: 0.85; word-break: break-all; }
select { background: var(--vscode-dropdown-background); color: var(--vscode-dropdown-foreground); border: 1px solid var(--vscode-dropdown-border); max-width: 100%; }
table { border-collapse: collapse; margin: 8px 0; font-family: var(--vscode-editor-font-family); }
th, td { padding: 2px 10px; text-align: right; border-bottom: 1px solid var(--vscode-editorWidget-border, #444); }
th:first-child, td:first-child, td:nth-child(2) { text-align: left; }
tr.limiter td { color: var(--vscode-charts-orange, #d18616); font-weight: bold; } tr.same td { opacity: 0.5; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(380px, 1fr)); gap: 16px; }
.canvas { position: relative; }
ol.findings { padding-left: 20px; } .finding p { margin: 2px 0 10px; opacity: 0.9; }
.finding-head { display: flex; gap: 8px; align-items: baseline; }
.badge { font-size: 0.8em; padding: 0 4px; border: 1px solid currentColor; border-radius: 3px; }
.opt .badge { color: var(--vscode-charts-orange, #d18616); } .wrn .badge, .err .badge { color: var(--vscode-errorForeground, #f14c4c); }
.speedup { color: var(--vscode-charts-green, #89d185); }
.compare-heads { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
.error { color: var(--vscode-errorForeground, #f14c4c); white-space: pre-wrap; } .note { opacity: 0.8; }
`;

export function profileHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = randomBytes(18).toString("base64");
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, "dist", "webview", "profile.js"));
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource} data:`,
    `style-src 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
  ].join("; ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>Profile</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<div id="root"><p>Loading…</p></div>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
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
