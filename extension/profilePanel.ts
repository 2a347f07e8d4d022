// The profile panel, shared by the Profile command, the .ncu-rep / ncu CSV custom editors, the
// compare command and Nsight Systems: one panel per key (a kernel's profile, a comparison, a command
// line), hosted by webviewHost.ts.
import type * as vscode from "vscode";
import type { HostMessage } from "../webview/profile/protocol";
import { PanelSet, type PanelOptions, WebviewHost } from "./webviewHost";

const options = (extensionUri: vscode.Uri, log: vscode.LogOutputChannel): PanelOptions => ({
  extensionUri,
  log,
  bundle: "profile",
  styles: ["shared", "profile"],
  title: "Profile",
  label: "profile panel",
});

const panels = new PanelSet<HostMessage>();

/** The profile page in a panel VS Code made (a custom editor's), showing `initial` until `show`. */
export function profileWebview(
  panel: vscode.WebviewPanel,
  extensionUri: vscode.Uri,
  log: vscode.LogOutputChannel,
  initial: HostMessage,
): WebviewHost<HostMessage> {
  return new WebviewHost(panel, options(extensionUri, log), initial);
}

/** Opens (or reveals and updates) the panel for `key`. */
export function showProfilePanel(
  ctx: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  key: string,
  title: string,
  message: HostMessage,
): void {
  panels.show(key, title, options(ctx.extensionUri, log), message);
}

export function disposePanels(): void {
  panels.dispose();
}
