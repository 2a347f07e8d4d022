// Which architectures a file is built for: the target half of its build context (buildContext.ts), for
// callers that need nothing else.
import { resolveBuildContext, type ResolvedTargets, type TargetQuery } from "./buildContext";

export { archsFromFlags } from "./buildFiles";
export { DEFAULT_TARGETS, type ResolvedTargets, type TargetQuery, type TargetSource } from "./buildContext";

export function resolveTargets(q: TargetQuery): ResolvedTargets {
  return resolveBuildContext(q).targets;
}
