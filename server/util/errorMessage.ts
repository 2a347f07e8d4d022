// The one way an unknown thrown value becomes a sentence for a message, a log line or a finding.
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
