// What the user reads when nsys fails: its own words, not ours.

/**
 * The message for a failed nsys run: nsys's error lines ("Importer error status: ...",
 * "... Error ...") when it printed any, else the tail of its output.
 */
export function nsysFailureMessage(output: string): string {
  const lines = output
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const errors = lines.filter((l) => /error|failed|fatal/i.test(l) && !/^\s*$/.test(l));
  const picked = errors.length > 0 ? errors.slice(-3) : lines.slice(-3);
  return picked.join(" | ") || "no output";
}
