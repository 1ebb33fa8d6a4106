// Profiles of the operator at moments the benchmark chooses. A CPU profile over a window
// (the no-op rounds, not start-up): the benchmark sends `{cpuProfile: 'start'}`, then
// `{cpuProfile: 'stop', file}`; the operator writes a .cpuprofile there (open it in Chrome
// DevTools or speedscope, or summarise it with bench/support/cpu-profile-summary.ts). An
// allocation profile the same way (`{allocationProfile: 'start'}`, then `'stop'` with a file):
// V8's sampling heap profiler, every 256 bytes on average, counting what the collector has
// freed since, so that it tells what a window allocated rather than what is left of it (a
// .heapprofile for DevTools, or bench/support/allocation-profile-summary.ts). Through the
// inspector's own Profiler, so no flag has to be given at start. A heap snapshot:
// `{heapSnapshot: file}` (summarise it with bench/support/heap-summary.ts).
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { writeHeapSnapshot } from 'node:v8';

export type ProfileMessage =
  | { cpuProfile: 'start' }
  | { cpuProfile: 'stop'; file: string }
  | { allocationProfile: 'start' }
  | { allocationProfile: 'stop'; file: string }
  | { heapSnapshot: string };

export function isProfileMessage(message: unknown): message is ProfileMessage {
  return (
    typeof message === 'object' &&
    message !== null &&
    ('cpuProfile' in message || 'allocationProfile' in message || 'heapSnapshot' in message)
  );
}

/** Average bytes between two samples: fine enough for a pass's few dozen kilobytes. */
const SAMPLING_INTERVAL_BYTES = 256;

let session: Session | undefined;

/** Answers `{ cpuProfile: 'started' | 'written' }` (for every kind of profile), or `{ cpuProfileError }`. */
export async function answerProfileMessage(message: ProfileMessage): Promise<Record<string, string>> {
  try {
    if ('heapSnapshot' in message) {
      writeHeapSnapshot(message.heapSnapshot);
      return { cpuProfile: 'written' };
    }
    if ('allocationProfile' in message) return await allocationProfile(message);
    if (message.cpuProfile === 'start') {
      session = connected();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
      return { cpuProfile: 'started' };
    }
    return await finish(message.file, async (running) => (await running.post('Profiler.stop')).profile);
  } catch (error) {
    return { cpuProfileError: error instanceof Error ? error.message : String(error) };
  }
}

async function allocationProfile(
  message: Extract<ProfileMessage, { allocationProfile: unknown }>,
): Promise<Record<string, string>> {
  if (message.allocationProfile === 'start') {
    session = connected();
    await session.post('HeapProfiler.enable');
    // The two flags (V8's, not in Node's typings yet) keep the samples of freed objects.
    const parameters = {
      samplingInterval: SAMPLING_INTERVAL_BYTES,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    };
    await session.post('HeapProfiler.startSampling', parameters);
    return { cpuProfile: 'started' };
  }
  return finish(message.file, async (running) => (await running.post('HeapProfiler.stopSampling')).profile);
}

/** Stops the running profile, writes it to `file` and lets the session go. */
async function finish(
  file: string,
  stop: (running: Session) => Promise<object>,
): Promise<Record<string, string>> {
  if (!session) return { cpuProfileError: 'no profile was started' };
  const profile = await stop(session);
  session.disconnect();
  session = undefined;
  await writeFile(file, JSON.stringify(profile));
  return { cpuProfile: 'written' };
}

function connected(): Session {
  const opened = new Session();
  opened.connect();
  return opened;
}
