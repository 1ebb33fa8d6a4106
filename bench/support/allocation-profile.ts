// Reading a sampling heap profile (a .heapprofile, written by profile-probe.ts): what was
// allocated in all, and by which function and source file. The bytes are the sampler's
// estimate (each sample stands for the sampling interval's worth), steady to a fraction of a
// percent between runs of the same code: the figure to compare two commits' no-op passes by,
// where their CPU per pass moves by more than that from round to round.
import { readFile } from 'node:fs/promises';
import type { CallFrame } from './profile-frames.js';

export interface AllocationNode {
  callFrame: CallFrame;
  selfSize: number;
  children?: AllocationNode[];
}

export interface AllocationProfile {
  head: AllocationNode;
}

export async function readAllocationProfile(file: string): Promise<AllocationProfile> {
  return JSON.parse(await readFile(file, 'utf8')) as AllocationProfile;
}

/** Every sampled byte of the profile. */
export function allocatedBytes(profile: AllocationProfile): number {
  let total = 0;
  const pending: AllocationNode[] = [profile.head];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    total += node.selfSize;
    pending.push(...(node.children ?? []));
  }
  return total;
}
