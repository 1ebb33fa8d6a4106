// Redaction of server text (kept for debug logs only): known secrets in every encoding an
// echo can take, and the value of every secret field whatever its length. The safe summary
// (what events and status get) holds no server text at all.
import { describe, expect, it } from 'vitest';
import { REDACTED, redactSecretFields, redactSecrets } from '../../src/controlplane/client/redact.js';
import {
  summarizeDetail,
  summarizeValidation,
  safeValidationEntries,
} from '../../src/controlplane/client/error-summary.js';

const QUOTED = 'p"q\\r-value';
const PEM =
  '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nQ2hvb3NlIGEgbG9uZyByYW5kb20g\n-----END PRIVATE KEY-----\n';
const KEY = 'sk-live-key-0001';

function echoBody(values: string[]): string {
  return JSON.stringify({ name: 'a', secrets: values.map((value, i) => ({ name: `S${i}`, value })) });
}

describe('redactSecrets', () => {
  it.each([
    ['as is', (v: string) => `detail ${v} end`],
    ['JSON-escaped', (v: string) => `detail ${JSON.stringify(v)} end`],
    ['JSON-escaped twice', (v: string) => JSON.stringify({ d: JSON.stringify({ x: v }) })],
    ['URL-encoded', (v: string) => `next=${encodeURIComponent(v)}`],
    ['form-encoded', (v: string) => `q=${encodeURIComponent(v).replace(/%20/g, '+')}`],
    ['base64', (v: string) => `auth ${Buffer.from(v).toString('base64')}`],
    ['base64url without padding', (v: string) => `auth ${Buffer.from(v).toString('base64url')}`],
  ])('replaces a known secret %s', (_form, encode) => {
    for (const secret of [QUOTED, PEM, KEY, 'with space & more']) {
      const text = encode(secret);
      const redacted = redactSecrets(text, [secret]);
      expect(redacted, text).toContain(REDACTED);
      const escaped = JSON.stringify(secret).slice(1, -1);
      for (const form of [
        secret,
        escaped,
        encodeURIComponent(secret),
        Buffer.from(secret).toString('base64'),
      ]) {
        expect(redacted).not.toContain(form);
      }
    }
  });

  it.each([
    ['hex', (v: string) => `bytes ${Buffer.from(v).toString('hex')}`],
    ['upper-case hex', (v: string) => `bytes ${Buffer.from(v).toString('hex').toUpperCase()}`],
    // Inside a longer encoded value the key starts at any byte offset, so its base64 differs
    // from base64(key) alone: every alignment must go.
    [
      'base64 of a header that holds it',
      (v: string) => Buffer.from(`Authorization: ${v}`).toString('base64'),
    ],
    ['base64 of JSON that holds it', (v: string) => Buffer.from(JSON.stringify({ k: v })).toString('base64')],
    ['base64url of text that holds it', (v: string) => Buffer.from(`x=${v};`).toString('base64url')],
  ])('leaves no trace of a known key %s', (_form, encode) => {
    for (const secret of [KEY, 'lsv2_pt_0123456789abcdef0123456789abcdef']) {
      const text = encode(secret);
      const redacted = redactSecrets(text, [secret]);
      expect(redacted, text).toContain(REDACTED);
      // What is left decodes to nothing that holds the key, nor a 12-character run of it.
      for (const decoded of [Buffer.from(redacted, 'base64').toString('latin1'), redacted]) {
        expect(decoded).not.toContain(secret.slice(2, 14));
      }
      expect(redacted.toLowerCase()).not.toContain(Buffer.from(secret.slice(2, 14)).toString('hex'));
    }
  });

  it('replaces each line of a re-wrapped PEM key', () => {
    const rewrapped = PEM.split('\n').join('\r\n    ');
    const redacted = redactSecrets(`key: ${rewrapped}`, [PEM]);
    expect(redacted).not.toContain('MIIEvQIBADANBgkqhkiG9w0BAQEFAASC');
    expect(redacted).not.toContain('Q2hvb3NlIGEgbG9uZyByYW5kb20g');
  });

  it('replaces the value of every secret field, whatever its length and whether known or not', () => {
    const body = echoBody(['abc', 'x', QUOTED, PEM]);
    for (const text of [
      `Bad request: ${body}`,
      JSON.stringify({ detail: `Bad request: ${body}` }),
      JSON.stringify({ outer: JSON.stringify({ detail: body }) }),
    ]) {
      const redacted = redactSecretFields(text);
      expect(redacted).not.toMatch(/"abc|"x\\*"|p\\*"q|MIIE/);
      expect(redacted.match(/\[REDACTED\]/g)).toHaveLength(4);
      // The rest of the text stays readable.
      expect(redacted).toContain('S3');
    }
    expect(redactSecretFields(`{'name': 'A', 'value': 'ab'} and {'token': "it's"}`)).toBe(
      `{'name': 'A', 'value': '${REDACTED}'} and {'token': '${REDACTED}'}`,
    );
    expect(redactSecretFields('POST /x?name=a&value=ab&password=c%22d next')).toBe(
      `POST /x?name=a&value=${REDACTED}&password=${REDACTED} next`,
    );
    expect(redactSecretFields('{"api_key": "k1", "apiKey": "k2", "private_key": "k3"}')).not.toMatch(/k\d/);
  });

  it('redacts a value cut short by truncation up to the end', () => {
    expect(redactSecretFields('{"value": "p\\"q-and-the-rest-was-cut')).toBe(`{"value": "${REDACTED}`);
  });

  it('leaves a short known value alone outside a secret field (documented: it would mangle words)', () => {
    expect(redactSecrets('abc is in abcdef', ['abc'])).toBe('abc is in abcdef');
    expect(redactSecrets('{"value": "abc"}', ['abc'])).toBe(`{"value": "${REDACTED}"}`);
  });
});

describe('the safe summary', () => {
  it('never quotes a 400 detail, only a field path and one of our rules', () => {
    const echo = `Injected fault: HTTP 400; request body: ${echoBody([QUOTED, 'abc', PEM])}`;
    expect(summarizeDetail(400, echo)).toBe('the control plane refused the request as invalid');
    expect(summarizeDetail(400, 'secrets[1].name "TOKEN_abc" is not unique')).toBe(
      'secrets[1].name: must be unique',
    );
    expect(summarizeDetail(400, `A deployment named "${QUOTED}" already exists in this tenant`)).toBe(
      'name: a deployment of that name already exists in this tenant',
    );
    // The resource-spec rules, by the rule they state; the values in the server's text are not quoted.
    expect(
      summarizeDetail(
        400,
        `source_config.resource_spec.cpu_limit (${KEY}) must not be below source_config.resource_spec.cpu (2)`,
      ),
    ).toBe('source_config.resource_spec.cpu_limit: a limit is below its request');
    expect(summarizeDetail(400, 'source_config.resource_spec.min_scale (-1) must not be negative')).toBe(
      'source_config.resource_spec.min_scale: must not be negative',
    );
    expect(summarizeDetail(403, KEY)).toBe('the API key may not act on this tenant or resource');
    expect(summarizeDetail(502, KEY)).toBe('server error');
  });

  it('keeps 422 locations that are field names and replaces anything else', () => {
    const entries = [
      { loc: ['body', 'secrets', 0, 'value'], msg: `bad ${QUOTED}`, type: 'string_too_short' },
      { loc: ['body', QUOTED], msg: QUOTED, type: `x ${QUOTED}` },
    ];
    expect(summarizeValidation(entries)).toBe('body.secrets[0].value: too short; body.?: invalid value');
    expect(safeValidationEntries(entries)).toEqual([
      { loc: ['body', 'secrets', 0, 'value'], msg: 'too short', type: 'string_too_short' },
      { loc: ['body', '?'], msg: 'invalid value', type: 'value_error' },
    ]);
  });
});
