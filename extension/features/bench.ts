// The bench bundle (dist/bench.js), loaded on the first benchmark or results file opened: the runs in
// the GPU runner and the results panels.
import * as benchmark from "../benchmark";
import * as benchPanel from "../benchPanel";
import * as calibrate from "../calibrate";
import type { ContributionsOf } from "../contributions";
import type { FeatureHost } from "../lazy";
import { guardLaunches } from "../workspaceTrust";

export function activate({ ctx, log }: FeatureHost): ContributionsOf<"bench"> {
  // First: this bundle's copy of the launcher must refuse tools before anything here can run one.
  guardLaunches(ctx);
  return {
    commands: {
      ...benchmark.activate(ctx, log),
      ...benchPanel.activate(ctx, log),
      ...calibrate.activate(log),
    },
    editors: {},
  };
}
