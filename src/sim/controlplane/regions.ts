// Several regions (or workspaces) at once, as `emulate control-plane --region us --region eu`
// serves them: one emulator per region, each with its own address, keys, rate limit and
// state, so that an operator with a US and an EU connection sees two control planes that
// know nothing of each other.
import {
  startControlPlaneEmulator,
  type ControlPlaneEmulator,
  type ControlPlaneEmulatorOptions,
} from './index.js';

export const EMULATED_REGIONS = ['us', 'eu'] as const;
export type EmulatedRegion = (typeof EMULATED_REGIONS)[number];

export interface RegionSetup {
  region: EmulatedRegion;
  options: ControlPlaneEmulatorOptions;
}

export interface RegionalEmulators {
  regions: Array<{ region: EmulatedRegion; url: string; emulator: ControlPlaneEmulator }>;
  close(): Promise<void>;
}

export async function startRegionalEmulators(setups: readonly RegionSetup[]): Promise<RegionalEmulators> {
  const regions: RegionalEmulators['regions'] = [];
  const close = async () => {
    await Promise.all(regions.map(({ emulator }) => emulator.close()));
  };
  try {
    for (const { region, options } of setups) {
      const emulator = await startControlPlaneEmulator(options);
      regions.push({ region, url: emulator.url, emulator });
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { regions, close };
}
