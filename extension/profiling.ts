// Nsight Compute / Nsight Systems / GPU features, wired together: they share the hot-line marks
// (a profile or an opened report replaces them). Nothing here runs a tool at activation.
import type * as vscode from "vscode";
import * as devicesView from "./devicesView";
import { HotLines } from "./hotLines";
import * as ncuReportEditor from "./ncuReportEditor";
import * as nsys from "./nsys";
import * as profile from "./profile";
import { disposePanels } from "./profilePanel";

export function activate(ctx: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  const hot = new HotLines(ctx);
  ctx.subscriptions.push(hot, { dispose: disposePanels });
  profile.activate(ctx, log, hot);
  ncuReportEditor.activate(ctx, log, hot);
  nsys.activate(ctx, log);
  devicesView.activate(ctx, log);
}
