// What a failed control-plane write means, before the one error policy sees it. Pure, like
// `decide`: the shell performs the write, hands the failure here and does what comes back.
// Most failures go to `errorPolicy`; three have a meaning of their own for the write they
// answer, and that meaning is decided here rather than in the shell.
import type { Action, PublishOptions } from './action.js';
import type { RefusedCreate } from './observed.js';
import type { Failure } from './ports.js';
import type { StatusFacts } from './status.js';
import type { SyncState } from './sync-state.js';

export type FailedWrite = Extract<Action, { kind: 'create' | 'patch' | 'delete' }>;

export type FailedWriteStep =
  /** `errorPolicy` decides (metric label, backoff or stall, condition). */
  | { kind: 'errorPolicy' }
  /** Look again at once, without counting a failure: the next observation shows what happened. */
  | { kind: 'lookAgain' }
  /** The write's aim holds anyway: go on as if it had succeeded. */
  | { kind: 'asIfDone' }
  /** Remember the refused create; the next `decide` looks the name up and says what it means. */
  | { kind: 'rememberRefusedCreate'; refusal: RefusedCreate }
  /** Publish the refusal and remember it, so that the same request is not sent again in a loop. */
  | {
      kind: 'publishRefusal';
      state: SyncState;
      facts: StatusFacts;
      options: Required<Pick<PublishOptions, 'refused'>>;
    };

export function decideFailedWrite(write: FailedWrite, error: Failure): FailedWriteStep {
  switch (write.kind) {
    case 'create':
      // A 400 may be a name clash: that takes a lookup, which is decide's to ask for.
      if (error.kind !== 'Terminal') return { kind: 'errorPolicy' };
      return {
        kind: 'rememberRefusedCreate',
        refusal: {
          specKey: write.specKey,
          name: write.request.name,
          message: error.message,
          facts: write.facts,
        },
      };
    case 'patch':
      // Deleted meanwhile: the next pass observes it gone and forgets it.
      if (error.kind === 'NotFound') return { kind: 'lookAgain' };
      if (error.kind !== 'Terminal') return { kind: 'errorPolicy' };
      return {
        kind: 'publishRefusal',
        state: {
          kind: 'Rejected',
          message: `The control plane rejected the update of ${write.changedFields.join(', ')}: ${error.message}`,
        },
        facts: write.facts,
        options: { refused: { specKey: write.specKey, reason: 'Rejected' } },
      };
    case 'delete':
      // Already gone is what a DELETE asks for.
      return error.kind === 'NotFound' ? { kind: 'asIfDone' } : { kind: 'errorPolicy' };
  }
}
