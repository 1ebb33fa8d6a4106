// Replayed no-op rounds (--replay-rounds): the operator reaches the Kubernetes emulator through
// a WatchReplayProxy; the first touch round's events are kept, and each replayed round writes
// them into the operator's watch again with the touch annotation set to another value, then
// counts the passes and the operator's CPU seconds.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeKubeconfig } from '../../src/sim/kube/kubeconfig.js';
import { loadKubeConfig } from '../../src/runtime/kube/kubeconfig.js';
import { AGENT_DEPLOYMENTS } from '../support/agent-deployments.js';
import type { OperatorProcess } from '../support/operator-process.js';
import { measureRound, type RoundFigures } from './round-figures.js';
import { WatchReplayProxy } from './watch-replay-proxy.js';

/** The annotation a touch round sets (to the round's number); the first round's is recorded. */
export const TOUCH_ANNOTATION = 'bench.agentplatform.io/touch';

export class WatchReplay {
  /** The recorded round's events with the touch value rewritten, two variants used in turn. */
  private variants: [Buffer[], Buffer[]] | undefined;

  private constructor(
    readonly proxy: WatchReplayProxy,
    readonly kubeconfigPath: string,
    private readonly dir: string,
  ) {}

  /** A proxy in front of the emulator of `kubeconfigPath`, and a kubeconfig pointing at it. */
  static async start(kubeconfigPath: string): Promise<WatchReplay> {
    const server = loadKubeConfig({ kind: 'file', path: kubeconfigPath }).getCurrentCluster()?.server;
    if (server === undefined) throw new Error(`${kubeconfigPath}: no current cluster`);
    const proxy = await WatchReplayProxy.start(server, AGENT_DEPLOYMENTS.plural);
    const dir = await mkdtemp(join(tmpdir(), 'agent-operator-replay-'));
    const proxiedKubeconfig = join(dir, 'kubeconfig');
    await writeKubeconfig(proxiedKubeconfig, proxy.url);
    return new WatchReplay(proxy, proxiedKubeconfig, dir);
  }

  /** Keeps the events recorded since startRecording (touch round 1); expects `n` of them. */
  keepRound(n: number): void {
    const recorded = `"${TOUCH_ANNOTATION}":"1"`;
    const lines = this.proxy.stopRecording(recorded);
    if (lines.length !== n) {
      throw new Error(`recorded ${lines.length} watch events in the first touch round, expected ${n}`);
    }
    const variant = (value: string): Buffer[] =>
      lines.map((line) => Buffer.from(`${line.replace(recorded, `"${TOUCH_ANNOTATION}":"${value}"`)}\n`));
    this.variants = [variant('replay-a'), variant('replay-b')];
  }

  events(round: number): Buffer[] {
    if (this.variants === undefined) throw new Error('no touch round was recorded');
    return round % 2 === 0 ? this.variants[0] : this.variants[1];
  }

  async close(): Promise<void> {
    await this.proxy.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** One replayed round: writes the events, then counts the passes as a touch round does. */
export function replayRound(
  replay: WatchReplay,
  operator: OperatorProcess,
  n: number,
  round: number,
  perSecond: number | undefined,
): Promise<RoundFigures> {
  return measureRound(operator, n, () =>
    replay.proxy.replay(
      replay.events(round),
      'AgentDeployment',
      `${AGENT_DEPLOYMENTS.group}/${AGENT_DEPLOYMENTS.version}`,
      perSecond,
    ),
  );
}
