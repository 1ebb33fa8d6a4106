// The unauthenticated utility routes: `/ok` (connectivity, also over a private network
// connection) and `/info`, which the official SDK reads first to pick its ingest path.
import type { Reply } from '../http/reply.js';

/** The backend version we claim: recent enough that the SDK's version checks stay quiet. */
export const EMULATED_BACKEND_VERSION = '0.18.0';

export const MAX_INGEST_BODY_BYTES = 20 * 1024 * 1024;

export function ok(): Reply {
  return { status: 200, body: { ok: true } };
}

export function info(): Reply {
  return {
    status: 200,
    body: {
      version: EMULATED_BACKEND_VERSION,
      license_expiration_time: null,
      batch_ingest_config: {
        use_multipart_endpoint: true,
        scale_up_qsize_trigger: 1000,
        scale_up_nthreads_limit: 16,
        scale_down_nempty_trigger: 4,
        size_limit: 100,
        size_limit_bytes: MAX_INGEST_BODY_BYTES,
      },
      instance_flags: { dataset_examples_multipart_enabled: true },
    },
  };
}
