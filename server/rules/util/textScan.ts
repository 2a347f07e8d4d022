// A global regex scan tried only where a match can start. Irregexp tries a regex at every offset of the
// text; for a regex whose matches all start with one of a few fixed words, indexOf finds those offsets
// much faster, and the whole-text scans run on every edit.

/**
 * The matches a global scan of `text` with `re` would find, in order: `re` must be sticky (`y`) and
 * every match of it must start with one of `starts`. The leftmost match from an offset starts at the
 * first of those words there that matches.
 */
export function* stickyMatches(
  text: string,
  re: RegExp,
  starts: readonly string[],
): Generator<RegExpExecArray> {
  const next = starts.map((w) => text.indexOf(w));
  for (let from = 0; ;) {
    let at = -1;
    for (let k = 0; k < next.length; k++) {
      if (next[k]! >= 0 && next[k]! < from) next[k] = text.indexOf(starts[k]!, from);
      if (next[k]! >= 0 && (at < 0 || next[k]! < at)) at = next[k]!;
    }
    if (at < 0) return;
    re.lastIndex = at;
    const m = re.exec(text);
    // An empty match would not move on: step past it as a global scan does.
    from = m && m[0].length > 0 ? at + m[0].length : at + 1;
    if (m) yield m;
  }
}
