// What a failed control-plane write means before the error policy sees it, row by row: the
// write, the failure, and what the shell does next. Pure: no call is made to decide.
import type { Deployment, DeploymentCreateRequest } from '../../src/controlplane/models/index.js';
import {
  decideFailedWrite,
  type FailedWrite,
  type FailedWriteStep,
} from '../../src/reconcilers/agentdeployment/failed-write.js';
import type { Failure } from '../../src/reconcilers/agentdeployment/ports.js';
import { decideTable, type DecideRow } from '../support/decide-table.js';

const ID = '11111111-1111-4111-8111-111111111111';

const request: DeploymentCreateRequest = {
  name: 'bot',
  source: 'external_container',
  source_config: { listener_id: '33333333-3333-4333-8333-333333333333' },
  source_revision_config: { image_uri: 'registry.example/bot:1' },
  secrets: [],
};

const deployment: Deployment = {
  ...request,
  id: ID,
  tenant_id: '00000000-0000-4000-8000-000000000000',
  created_at: '2026-11-23T11:59:00Z',
  updated_at: '2026-11-23T11:59:00Z',
  status: 'READY',
  latest_revision_id: 'r1',
  active_revision_id: 'r1',
};

const CREATE: FailedWrite = {
  kind: 'create',
  request,
  facts: { secretVersions: { keys: '4' } },
  specKey: '1|keys=4|',
};
const PATCH: FailedWrite = {
  kind: 'patch',
  deployment,
  patch: { source_revision_config: { image_uri: 'registry.example/bot:2' } },
  changedFields: ['spec.sourceRevisionConfig.imageUri'],
  createsRevision: true,
  drift: false,
  facts: { secretVersions: {} },
  specKey: '2||',
  warnings: [],
};
const DELETE: FailedWrite = { kind: 'delete', id: ID };

const terminal: Failure = { kind: 'Terminal', message: 'HTTP 400: listener not found', status: 400 };
const notFound: Failure = { kind: 'NotFound', message: 'HTTP 404', status: 404 };
const transient: Failure = { kind: 'Transient', message: 'reset', unclear: true };
const throttled: Failure = { kind: 'Throttled', message: 'budget', retryAfterMs: 800 };
const conflict: Failure = { kind: 'Conflict', message: 'HTTP 409', status: 409 };

interface Given {
  write: FailedWrite;
  error: Failure;
}

const rows: Array<DecideRow<Given, FailedWriteStep, FailedWriteStep>> = [
  // ---- create ----
  {
    name: 'a create refused as Terminal',
    reason: 'a 400 may be a name clash, which takes a lookup: remember it, the next decide asks',
    given: { write: CREATE, error: terminal },
    expect: {
      kind: 'rememberRefusedCreate',
      refusal: {
        specKey: '1|keys=4|',
        name: 'bot',
        message: 'HTTP 400: listener not found',
        facts: { secretVersions: { keys: '4' } },
      },
    },
  },
  {
    name: 'a create that timed out after sending',
    reason: 'it may have landed: the error policy backs off and the recorded intent finds it',
    given: { write: CREATE, error: transient },
    expect: { kind: 'errorPolicy' },
  },
  {
    name: 'a create answered 404',
    reason: 'no special meaning for a create: the error policy decides',
    given: { write: CREATE, error: notFound },
    expect: { kind: 'errorPolicy' },
  },
  // ---- patch ----
  {
    name: 'a patch of a deployment deleted meanwhile',
    reason: 'look again at once, with no failure counted: the next observation shows it gone',
    given: { write: PATCH, error: notFound },
    expect: { kind: 'lookAgain' },
  },
  {
    name: 'a patch refused as Terminal',
    reason: 'Rejected naming the fields, remembered so that the same update is not sent in a loop',
    given: { write: PATCH, error: terminal },
    expect: {
      kind: 'publishRefusal',
      state: {
        kind: 'Rejected',
        message:
          'The control plane rejected the update of spec.sourceRevisionConfig.imageUri: HTTP 400: listener not found',
      },
      facts: { secretVersions: {} },
      options: { refused: { specKey: '2||', reason: 'Rejected' } },
    },
  },
  {
    name: 'a patch throttled',
    reason: 'the error policy waits as long as the budget says',
    given: { write: PATCH, error: throttled },
    expect: { kind: 'errorPolicy' },
  },
  // ---- delete ----
  {
    name: 'a delete of a deployment already gone',
    reason: 'gone is what a DELETE asks for: go on as if it had succeeded',
    given: { write: DELETE, error: notFound },
    expect: { kind: 'asIfDone' },
  },
  {
    name: 'a delete refused as Terminal',
    reason: 'no refusal memory for a delete: the error policy stalls it as Rejected',
    given: { write: DELETE, error: terminal },
    expect: { kind: 'errorPolicy' },
  },
  {
    name: 'a delete that met a 409',
    reason: 'the error policy requeues at once',
    given: { write: DELETE, error: conflict },
    expect: { kind: 'errorPolicy' },
  },
];

decideTable('decideFailedWrite', ({ write, error }: Given) => decideFailedWrite(write, error), rows, {
  match: 'equal',
  covers: {
    all: ['errorPolicy', 'lookAgain', 'asIfDone', 'rememberRefusedCreate', 'publishRefusal'],
    of: (_given, step) => step.kind,
  },
});
