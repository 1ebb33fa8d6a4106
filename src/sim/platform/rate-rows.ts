// The platform API's published rate table, transcribed for the emulator on its own (the
// emulator must not reuse the client's copy: a typo there would then go unnoticed). One line
// per published row: match, identity, US limit, EU limit, category. Match forms:
// - `METHOD` alone, `/path` (the path holds these segments anywhere), `METHOD /path` (method
//   and the path ends with these segments), `METHOD ~/path` (the path contains them),
//   `GET /runs/{uuid}` (ends with /runs and one uuid), `*` (every request);
// - several alternatives separated by ` | `.

export type PlatformRegion = 'us' | 'eu';
export type Identity = 'api-key' | 'user-id+ip' | 'ip';

const PUBLISHED = `
OPTIONS | /info | ~/v1/metadata/submit            ; ip         ; 2000/10  ; 2000/10  ; High throughput
/auth                                             ; api-key    ; 2000/10  ; 2000/10  ; High throughput
/auth                                             ; user-id+ip ; 2000/10  ; 2000/10  ; High throughput
/v1/beacon                                        ; ip         ; 2000/10  ; 2000/10  ; High throughput
/repos                                            ; api-key    ; 100/60   ; 100/60   ; Repository
/repos                                            ; user-id+ip ; 100/60   ; 100/60   ; Repository
POST /runs/batch                                  ; api-key    ; 2000/10  ; 2000/10  ; High throughput
POST /otel/v1/traces                              ; api-key    ; 2000/10  ; 2000/10  ; Run ingest
POST ~/charts                                     ; api-key    ; 750/600  ; 750/600  ; Charts
POST ~/charts                                     ; user-id+ip ; 750/600  ; 750/600  ; Charts
POST /runs/multipart                              ; api-key    ; 6000/10  ; 6000/10  ; Multipart ingest
POST /runs/query                                  ; api-key    ; 15/10    ; 15/10    ; Run query (API)
POST /runs/query                                  ; user-id+ip ; 300/10   ; 300/10   ; Run query (User)
/generate                                         ; api-key    ; 30/3600  ; 30/3600  ; Generation
/generate                                         ; user-id+ip ; 30/3600  ; 30/3600  ; Generation
/commits                                          ; api-key    ; 10000/60 ; 2000/60  ; Commits
/commits                                          ; user-id+ip ; 10000/60 ; 2000/60  ; Commits
DELETE ~/sessions | ~/trigger                     ; api-key    ; 10/60    ; 10/60    ; Deletion
DELETE ~/sessions | ~/trigger                     ; user-id+ip ; 30/60    ; 30/60    ; Deletion
POST /runs                                        ; api-key    ; 2000/10  ; 2000/10  ; Run ingest
PATCH ~/runs                                      ; api-key    ; 2000/10  ; 2000/10  ; Run ingest
POST /feedback                                    ; api-key    ; 2000/10  ; 2000/10  ; High throughput
GET /runs/{uuid}                                  ; api-key    ; 30/60    ; 30/60    ; Run lookup
GET ~/examples                                    ; api-key    ; 5000/60  ; 5000/60  ; Examples
*                                                 ; api-key    ; 1000/10  ; 1000/10  ; Default (API key)
*                                                 ; user-id+ip ; 1000/10  ; 1000/10  ; Default (User)
/public/download                                  ; ip         ; 5000/60  ; 5000/60  ; Public download
/runs/stats                                       ; api-key    ; 1/10     ; 20/10    ; Stats
*                                                 ; ip         ; 100/60   ; 100/60   ; Public (catch-all)
`;

export interface Limit {
  count: number;
  windowSeconds: number;
}

interface Alternative {
  method?: string;
  segments?: string[];
  /** contains: anywhere; endsWith: at the end; endsWithUuid: at the end, then one uuid. */
  where: 'contains' | 'endsWith' | 'endsWithUuid' | 'any';
}

export interface PublishedRow {
  index: number;
  category: string;
  identity: Identity;
  limits: Record<PlatformRegion, Limit>;
  alternatives: Alternative[];
  /** `*` rows: they count what no specific row of their identity counted. */
  catchAll: boolean;
}

function parseLimit(text: string): Limit {
  const [count, seconds] = text.split('/').map(Number);
  return { count: count ?? 0, windowSeconds: seconds ?? 0 };
}

function parseAlternative(text: string): Alternative {
  if (text === '*') return { where: 'any' };
  const [first, second] = text.split(' ');
  const method = first !== undefined && /^[A-Z]+$/.test(first) ? first : undefined;
  const path = method === undefined ? first : second;
  if (path === undefined) return { method, where: 'any' };
  const segmentsOf = (p: string): string[] => p.split('/').filter((s) => s !== '');
  if (path.endsWith('/{uuid}'))
    return { method, where: 'endsWithUuid', segments: segmentsOf(path.slice(0, -7)) };
  if (path.startsWith('~')) return { method, where: 'contains', segments: segmentsOf(path.slice(1)) };
  // A bare path names a family (`/repos`, `/auth`): anywhere; with a method it is one endpoint.
  return { method, where: method === undefined ? 'contains' : 'endsWith', segments: segmentsOf(path) };
}

export const PUBLISHED_ROWS: readonly PublishedRow[] = PUBLISHED.trim()
  .split('\n')
  .map((line, index) => {
    const [match = '', identity = '', us = '', eu = '', category = ''] = line.split(';').map((s) => s.trim());
    const alternatives = match.split(' | ').map((s) => parseAlternative(s.trim()));
    return {
      index,
      category,
      identity: identity as Identity,
      limits: { us: parseLimit(us), eu: parseLimit(eu) },
      alternatives,
      catchAll: match === '*',
    };
  });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function runAt(have: readonly string[], want: readonly string[], start: number): boolean {
  return start >= 0 && want.every((segment, i) => have[start + i] === segment);
}

function alternativeMatches(alternative: Alternative, method: string, parts: readonly string[]): boolean {
  if (alternative.method !== undefined && alternative.method !== method) return false;
  const want = alternative.segments ?? [];
  switch (alternative.where) {
    case 'any':
      return true;
    case 'endsWith':
      return runAt(parts, want, parts.length - want.length);
    case 'endsWithUuid':
      return UUID.test(parts[parts.length - 1] ?? '') && runAt(parts, want, parts.length - 1 - want.length);
    case 'contains':
      for (let start = 0; start + want.length <= parts.length; start += 1) {
        if (runAt(parts, want, start)) return true;
      }
      return false;
  }
}

/**
 * The rows that count a request. The table does not say which row wins when several match:
 * every matching specific row counts it; a `*` row counts it only when no specific row of its
 * identity did; the IP catch-all counts only requests that carry no credential.
 */
export function rowsFor(method: string, path: string, identities: ReadonlySet<Identity>): PublishedRow[] {
  const parts = path.split('/').filter((s) => s !== '');
  const presented = PUBLISHED_ROWS.filter((row) => identities.has(row.identity));
  const specific = presented.filter(
    (row) => !row.catchAll && row.alternatives.some((a) => alternativeMatches(a, method, parts)),
  );
  const covered = new Set(specific.map((row) => row.identity));
  const hasCredential = identities.has('api-key') || identities.has('user-id+ip');
  const catchAll = presented.filter(
    (row) => row.catchAll && !covered.has(row.identity) && !(row.identity === 'ip' && hasCredential),
  );
  return [...specific, ...catchAll];
}
