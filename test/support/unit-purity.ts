// Vitest setup file, for every run: a unit test (a file named *.unit.test.ts) may not listen
// on a socket or start a child process. That is what keeps `npm run test:unit` quick and
// free of installed tools (helm, kubectl, Prometheus, podman), and the rule is enforced here
// instead of trusted: a unit test that starts a server fails with the reason, in the unit run
// and in the full run alike. Tests that need a server or a tool keep the plain *.test.ts name.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import { afterAll, expect } from 'vitest';

export const UNIT_TEST_FILE = /\.unit\.test\.ts$/;

function refuse(what: string): never {
  throw new Error(
    `${what} in a unit test (${expect.getState().testPath ?? 'unknown file'}): a *.unit.test.ts file starts ` +
      'no server and no child process; rename it to *.test.ts if it needs one (see docs/testing.md)',
  );
}

const CHILD_PROCESS_STARTERS = [
  'spawn',
  'spawnSync',
  'exec',
  'execSync',
  'execFile',
  'execFileSync',
  'fork',
] as const;

/** Replaces the starters with refusals; returns what puts the originals back. */
function forbidServersAndChildren(): () => void {
  const listen = net.Server.prototype.listen;
  net.Server.prototype.listen = function refusedListen(): never {
    return refuse('net.Server.listen()');
  };
  const writable = childProcess as unknown as Record<string, unknown>;
  const originals = CHILD_PROCESS_STARTERS.map((name) => [name, writable[name]] as const);
  for (const name of CHILD_PROCESS_STARTERS) {
    writable[name] = (): never => refuse(`child_process.${name}()`);
  }
  // Named ESM imports of node:child_process read the builtin's exports: bring them in line.
  syncBuiltinESMExports();
  return () => {
    net.Server.prototype.listen = listen;
    for (const [name, original] of originals) writable[name] = original;
    syncBuiltinESMExports();
  };
}

if (UNIT_TEST_FILE.test(expect.getState().testPath ?? '')) {
  const restore = forbidServersAndChildren();
  // Should a worker process ever run another file after this one, that file starts clean.
  afterAll(restore);
}
