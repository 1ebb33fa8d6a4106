// multipart/form-data bodies, as the official SDK builds them for run ingest and example
// upload: parts named by their `Content-Disposition` name, each with its own content type.
import { HttpError, validationError } from '../http/http-error.js';
import { jsonNestingError } from '../http/json-body.js';

export interface FormPart {
  name: string;
  contentType: string;
  data: Buffer;
}

function boundaryOf(contentType: string): string | undefined {
  const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

function malformed(why: string): HttpError {
  return new HttpError(422, {
    detail: [{ loc: ['body'], msg: `Malformed multipart body: ${why}`, type: 'value_error' }],
  });
}

/** Splits a multipart body; throws 422 when it is not one. */
export function parseMultipart(contentType: string, body: Buffer): FormPart[] {
  if (!/^multipart\/form-data/i.test(contentType))
    throw malformed('Content-Type must be multipart/form-data');
  const boundary = boundaryOf(contentType);
  if (boundary === undefined) throw malformed('the Content-Type has no boundary');
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: FormPart[] = [];
  let position = body.indexOf(delimiter);
  if (position < 0) throw malformed('no part found');
  for (;;) {
    const afterDelimiter = position + delimiter.length;
    if (body.subarray(afterDelimiter, afterDelimiter + 2).toString() === '--') return parts;
    const headerStart = afterDelimiter + 2;
    const headerEnd = body.indexOf('\r\n\r\n', headerStart);
    if (headerEnd < 0) throw malformed('a part has no header end');
    const next = body.indexOf(delimiter, headerEnd + 4);
    if (next < 0) throw malformed('the closing boundary is missing');
    const headers = body.subarray(headerStart, headerEnd).toString('utf8').split('\r\n');
    const disposition = headers.find((h) => /^content-disposition:/i.test(h)) ?? '';
    const name = /name="([^"]*)"/i.exec(disposition)?.[1];
    if (name === undefined) throw malformed('a part has no name');
    const typeHeader = headers.find((h) => /^content-type:/i.test(h));
    const contentTypeOfPart =
      typeHeader === undefined ? 'text/plain' : typeHeader.slice(typeHeader.indexOf(':') + 1).trim();
    // The part's data ends with the CRLF that precedes the next delimiter.
    parts.push({ name, contentType: contentTypeOfPart, data: body.subarray(headerEnd + 4, next - 2) });
    position = next;
  }
}

export function unknownPart(part: FormPart): HttpError {
  return validationError([{ loc: ['body', part.name], msg: 'Unknown part name', type: 'value_error' }]);
}

/**
 * Folds JSON parts into one object per id: the part `<id>` brings the object's own fields,
 * `<id>.<field>` one more field (how the SDK sends inputs and outputs apart from the rest).
 */
export function foldJsonPart(
  drafts: Map<string, Record<string, unknown>>,
  part: FormPart,
  id: string,
  field: string | undefined,
): void {
  const text = part.data.toString('utf8');
  const tooDeep = jsonNestingError(text, ['body', part.name]);
  if (tooDeep !== undefined) throw tooDeep;
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw validationError([{ loc: ['body', part.name], msg: 'JSON decode error', type: 'json_invalid' }]);
  }
  const draft = drafts.get(id) ?? {};
  if (field === undefined) Object.assign(draft, value);
  else draft[field] = value;
  drafts.set(id, { ...draft, id });
}
