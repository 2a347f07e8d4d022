// The `@bench` spec checks as an extra diagnostic provider: findings in the specs above kernels, beside the
// rules' findings. Each open document keeps its last scan, so edits that cannot change it skip the scan.
import { SpecFindingsCache } from "../bench/specFindingsCache";
import type { ServerContext } from "./context";

export function register(ctx: ServerContext): void {
  const caches = new Map<string, SpecFindingsCache>();
  ctx.diagnosticProviders.push((doc) => {
    let cache = caches.get(doc.uri);
    if (!cache) caches.set(doc.uri, (cache = new SpecFindingsCache()));
    return cache.findings(doc.text);
  });
  ctx.onDidClose.event((uri) => caches.delete(uri));
}
