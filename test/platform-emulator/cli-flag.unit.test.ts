// `agent-operator emulate control-plane --trace-delete-delay <duration>`.
import { describe, expect, it } from 'vitest';
import { parseEmulatorArgs, UsageError } from '../../src/sim/controlplane/cli.js';

describe('--trace-delete-delay', () => {
  it('takes a duration with its unit', () => {
    expect(parseEmulatorArgs(['--port', '0', '--trace-delete-delay', '2s'])).toMatchObject({
      traceDeleteDelayMs: 2000,
    });
    expect(parseEmulatorArgs(['--port', '0', '--trace-delete-delay', '250ms'])).toMatchObject({
      traceDeleteDelayMs: 250,
    });
    expect(parseEmulatorArgs(['--port', '0', '--trace-delete-delay', '1h'])).toMatchObject({
      traceDeleteDelayMs: 3_600_000,
    });
  });

  it('refuses a bare number or garbage, naming the flag', () => {
    for (const bad of ['2', 'soon', '1.5.2s']) {
      expect(() => parseEmulatorArgs(['--port', '0', '--trace-delete-delay', bad])).toThrow(UsageError);
      expect(() => parseEmulatorArgs(['--port', '0', '--trace-delete-delay', bad])).toThrow(
        /--trace-delete-delay/,
      );
    }
  });
});
