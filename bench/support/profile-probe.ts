// Profiles of the operator at moments the benchmark chooses. A CPU profile over a window
// (the no-op rounds, not start-up): the benchmark sends `{cpuProfile: 'start'}`, then
// `{cpuProfile: 'stop', file}`; the operator writes a .cpuprofile there (open it in Chrome
// DevTools or speedscope, or summarise it with bench/support/cpu-profile-summary.ts).
// Through the inspector's own Profiler, so no flag has to be given at start. A heap
// snapshot: `{heapSnapshot: file}` (summarise it with bench/support/heap-summary.ts).
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { writeHeapSnapshot } from 'node:v8';

export type ProfileMessage =
  | { cpuProfile: 'start' }
  | { cpuProfile: 'stop'; file: string }
  | { heapSnapshot: string };

export function isProfileMessage(message: unknown): message is ProfileMessage {
  return typeof message === 'object' && message !== null && ('cpuProfile' in message || 'heapSnapshot' in message);
}

let session: Session | undefined;

/** Answers `{ cpuProfile: 'started' | 'written' }`, or `{ cpuProfileError }`. */
export async function answerProfileMessage(message: ProfileMessage): Promise<Record<string, string>> {
  try {
    if ('heapSnapshot' in message) {
      writeHeapSnapshot(message.heapSnapshot);
      return { cpuProfile: 'written' };
    }
    if (message.cpuProfile === 'start') {
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
      return { cpuProfile: 'started' };
    }
    if (!session) return { cpuProfileError: 'no profile was started' };
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    session = undefined;
    await writeFile(message.file, JSON.stringify(profile));
    return { cpuProfile: 'written' };
  } catch (error) {
    return { cpuProfileError: error instanceof Error ? error.message : String(error) };
  }
}
