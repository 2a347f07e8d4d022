// Architecture spellings as the build systems write them, normalised to SM numbers (sm_90a -> 90).

/**
 * "sm_90a", "compute_80", "8.6", "8.6+PTX", "90", "90-real", "9.0a" -> the SM number; undefined for
 * anything else ("native", "all", "all-major": the build decides at build time, so we cannot).
 */
export function parseArch(raw: string): number | undefined {
  const s = raw
    .trim()
    .toLowerCase()
    .replace(/^["']|["']$/g, "");
  let m = /^(?:sm|compute|lto)_(\d{2,3})[af]?$/.exec(s);
  if (m) return Number(m[1]);
  m = /^(\d{1,2})\.(\d)[af]?(?:\+ptx)?$/.exec(s);
  if (m) return Number(m[1]) * 10 + Number(m[2]);
  m = /^(\d{2,3})[af]?(?:-(?:real|virtual))?$/.exec(s);
  if (m) return Number(m[1]);
  return undefined;
}

/** Parses a list ("sm_75,sm_90", "7.5;8.0 9.0") into sorted unique SM numbers; throws on a bad entry. */
export function parseArchList(list: string | readonly string[]): number[] {
  const items = (typeof list === "string" ? [list] : list)
    .flatMap((s) => s.split(/[\s,;]+/))
    .filter((s) => s.length > 0);
  const out = new Set<number>();
  for (const item of items) {
    const sm = parseArch(item);
    if (sm === undefined) throw new Error(`unknown architecture "${item}" (expected e.g. sm_75, 8.0 or 90)`);
    out.add(sm);
  }
  return [...out].sort((a, b) => a - b);
}

export const formatArch = (sm: number): string => `sm_${sm}`;
