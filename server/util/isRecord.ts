/** A plain JSON object (not null, not an array): what a config, a setting or a saved result must be. */
export const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);
