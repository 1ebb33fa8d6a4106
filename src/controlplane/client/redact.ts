// A server may echo what it was sent (a detail that quotes a secret value, a validation
// message that includes the input): every text taken from a response passes through here
// before it becomes part of an error message or a log line.

const MIN_REDACTABLE_LENGTH = 4;

export function redactSecrets(text: string, secrets: readonly string[]): string {
  let result = text;
  // Longest first, so that a secret containing another is replaced whole.
  const ordered = [...new Set(secrets)]
    .filter((s) => s.length >= MIN_REDACTABLE_LENGTH)
    .sort((a, b) => b.length - a.length);
  for (const secret of ordered) result = result.split(secret).join('[REDACTED]');
  return result;
}

/** Long server texts are cut so that one odd response cannot flood logs. */
export function truncate(text: string, max = 500): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
