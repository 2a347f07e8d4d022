// Durations as kernel developers read them, in the CLI's tables and in the panels.

/** 12.3 µs / 1.234 ms: the unit that keeps 3-4 significant digits. */
export function formatNs(ns: number): string {
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(3)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(ns >= 1e5 ? 1 : 2)} µs`;
  return `${ns.toFixed(0)} ns`;
}
