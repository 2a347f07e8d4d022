// Regexes built from a file's names (its half-typed names, per function) are the same from one lint run
// to the next: built once per source and shared.
/** Global regexes built from names, by source: a file's functions (and its next lint) ask for the same ones. */
const built = new Map<string, RegExp>();

/**
 * `new RegExp(source, "g")`, shared with earlier callers of the same source (each caller sets lastIndex
 * before use, and none holds it across another's search).
 */
export function globalRegex(source: string): RegExp {
  let re = built.get(source);
  if (!re) {
    if (built.size >= 512) built.clear();
    re = new RegExp(source, "g");
    built.set(source, re);
  }
  return re;
}
