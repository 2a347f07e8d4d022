// The bench bundle (dist/bench.js), loaded on the first benchmark or results file opened: the runs in
// the GPU runner and the results panels.
import * as benchmark from "../benchmark";
import * as benchPanel from "../benchPanel";
import * as calibrate from "../calibrate";
import type { ContributionsOf } from "../contributions";
import type { FeatureHost } from "../lazy";

export function activate({ ctx, log }: FeatureHost): ContributionsOf<"bench"> {
  return {
    commands: {
      ...benchmark.activate(ctx, log),
      ...benchPanel.activate(ctx, log),
      ...calibrate.activate(log),
    },
    editors: {},
  };
}
