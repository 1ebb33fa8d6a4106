// A CPU profile of the operator over a window the benchmark chooses (the no-op rounds, not
// start-up): the benchmark sends `cpu-profile-start`, then `cpu-profile-stop` with a file
// path; the operator writes a .cpuprofile there (open it in Chrome DevTools or
// speedscope, or summarise it with `npx tsx bench/support/cpu-profile-summary.ts FILE`).
// Through the inspector's own Profiler, so no flag has to be given at start.
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';

export type CpuProfileMessage = { cpuProfile: 'start' } | { cpuProfile: 'stop'; file: string };

export function isCpuProfileMessage(message: unknown): message is CpuProfileMessage {
  return typeof message === 'object' && message !== null && 'cpuProfile' in message;
}

let session: Session | undefined;

/** Answers `{ cpuProfile: 'started' | 'written' }`, or `{ cpuProfileError }`. */
export async function answerCpuProfileMessage(message: CpuProfileMessage): Promise<Record<string, string>> {
  try {
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
