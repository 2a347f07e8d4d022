// The profiling bundle (dist/profiling.js), loaded on the first of its commands, the first report
// opened in its editors or the CUDA Devices view's first look: Nsight Compute, Nsight Systems and
// the GPUs, wired together. They share the hot-line marks (a profile or an opened report replaces them).
import type { ContributionsOf } from "../contributions";
import * as devicesView from "../devicesView";
import { HotLines } from "../hotLines";
import type { FeatureHost } from "../lazy";
import * as ncuReportEditor from "../ncuReportEditor";
import * as nsys from "../nsys";
import * as nsysReportEditor from "../nsysReportEditor";
import * as profile from "../profile";
import { disposePanels } from "../profilePanel";

export function activate({ ctx, log }: FeatureHost) {
  const hot = new HotLines(ctx);
  ctx.subscriptions.push(hot, { dispose: disposePanels });
  const reports = ncuReportEditor.activate(ctx, log, hot);
  const gpus = devicesView.activate(log);
  const contributions: ContributionsOf<"profiling"> = {
    commands: {
      ...profile.activate(ctx, log, hot),
      ...reports.commands,
      ...nsys.activate(ctx, log),
      ...gpus.commands,
    },
    editors: { ...reports.editors, ...nsysReportEditor.activate(ctx, log) },
  };
  return { ...contributions, devices: gpus.devices };
}
