// Every form in which an echo or a log could carry a secret value: as is, JSON-escaped once
// and twice, URL-encoded and base64. A leak test asserts that none of them appears.
export function secretForms(value: string): string[] {
  const once = JSON.stringify(value).slice(1, -1);
  return [
    value,
    once,
    JSON.stringify(once).slice(1, -1),
    encodeURIComponent(value),
    Buffer.from(value).toString('base64'),
  ];
}
