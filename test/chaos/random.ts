// A small seeded pseudo-random generator (mulberry32). The chaos suite draws every decision
// from it so that a seed names a run: the same seed makes the same sequence of choices.
// Each concurrent loop (workload, control-plane faults, kube faults, kills) gets its own
// stream, because their interleaving depends on timing and would otherwise mix the draws.

export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both ends included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('SeededRandom.pick: no items to pick from');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** Picks a key with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as Array<[K, number]>;
    const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
    let roll = this.next() * total;
    for (const [key, weight] of entries) {
      roll -= weight;
      if (roll < 0) return key;
    }
    const last = entries[entries.length - 1];
    if (!last) throw new Error('SeededRandom.weighted: no weights');
    return last[0];
  }

  /** An independent stream for one concurrent loop, derived from this seed and a label. */
  fork(label: string): SeededRandom {
    let hash = this.state ^ 0x9e3779b9;
    for (const char of label) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
    return new SeededRandom(hash);
  }
}
