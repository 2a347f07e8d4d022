// The nvcc bundle (dist/nvcc.js), loaded on the first save that compiles or the first of its
// commands: nvcc diagnostics on save, the Occupancy panel and the PTX/SASS views.
import type { ContributionsOf } from "../contributions";
import type { FeatureHost } from "../lazy";
import * as nvccDiagnostics from "../nvccDiagnostics";
import * as occupancyPanel from "../occupancyPanel";
import * as ptxView from "../ptxView";

export function activate({ ctx, log }: FeatureHost) {
  const nvcc = nvccDiagnostics.activate(ctx, log);
  const asm = ptxView.activate(ctx, log);
  const contributions: ContributionsOf<"nvcc"> = {
    commands: {
      ...nvcc.commands,
      ...occupancyPanel.activate(ctx, nvcc.checks, log),
      ...asm.commands,
    },
    editors: {},
  };
  return { ...contributions, checks: nvcc.checks, asm: asm.views };
}
