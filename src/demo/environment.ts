// Where the demo runs: the embedded emulators by default, or a real cluster (a kubeconfig)
// and/or a real control plane (a URL and an API key) when the user gives them.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { loadKubeTarget } from '../command-line/kubeconfig.js';
import { loadClusterAccess, type ClusterAccess } from '../runtime/kube/cluster-access.js';
import { DEFAULT_API_KEY } from '../sim/controlplane/index.js';
import { startRegionalEmulators } from '../sim/controlplane/regions.js';
import { startKubeEmulator } from '../sim/kube/index.js';

/** The embedded EU emulator's key: a workspace of its own, unknown to the US emulator. */
const EU_API_KEY = 'emulator-key-eu';

export interface DemoEnvironmentOptions {
  /** A real cluster: --kubeconfig and/or --context, read as kubectl reads them. */
  kubeconfig?: string;
  context?: string;
  controlPlaneUrl?: string;
  apiKey?: string;
  revisionPhaseMs: number;
  stateDir?: string;
  logger: Logger;
}

export interface DemoEnvironment {
  kubeConfig: ClusterAccess;
  kubeconfigPath: string;
  /** --context, when the user named one (the kubectl lines the demo prints carry it). */
  context?: string;
  controlPlaneUrl: string;
  apiKey: string;
  /** The embedded control-plane emulator's admin token (undefined for a real control plane). */
  adminToken: string | undefined;
  /** The embedded EU control plane, for the demo's second connection (absent with a real control plane). */
  secondRegion?: { url: string; apiKey: string };
  embeddedKube: boolean;
  embeddedControlPlane: boolean;
  stateDir: string;
  close(): Promise<void>;
}

export async function startDemoEnvironment(options: DemoEnvironmentOptions): Promise<DemoEnvironment> {
  const ownStateDir = options.stateDir === undefined;
  const stateDir = options.stateDir ?? (await mkdtemp(join(tmpdir(), 'agent-operator-demo-')));
  const closers: Array<() => Promise<void>> = [];
  const close = async (): Promise<void> => {
    for (const closeOne of closers.reverse()) await closeOne();
    closers.length = 0;
  };
  // Whatever fails from here on, what was already started is stopped again: an emulator left
  // listening would keep the process alive after the error is printed.
  try {
    let controlPlaneUrl = options.controlPlaneUrl;
    let apiKey = options.apiKey;
    let adminToken: string | undefined;
    let secondRegion: DemoEnvironment['secondRegion'];
    if (!controlPlaneUrl) {
      // Two regions, as `emulate control-plane --region us --region eu` serves them: the US
      // one is the default connection; the EU one, with its own key and state, the second.
      // The examples name the US emulator's default listener and integration, which belong
      // to its default key. The platform's trace deletion job runs a second after a request:
      // the demo shows verification.
      const common = { revisionPhaseMs: options.revisionPhaseMs, traceDeleteDelayMs: 1_000 };
      const regions = await startRegionalEmulators([
        { region: 'us', options: { ...common, platformRegion: 'us' } },
        { region: 'eu', options: { ...common, platformRegion: 'eu', apiKeys: [{ key: EU_API_KEY }] } },
      ]);
      closers.push(() => regions.close());
      const [us, eu] = regions.regions;
      if (us === undefined || eu === undefined) throw new Error('the regional emulators did not start');
      controlPlaneUrl = us.url;
      apiKey = DEFAULT_API_KEY;
      adminToken = us.emulator.adminToken;
      secondRegion = { url: eu.url, apiKey: EU_API_KEY };
    }
    if (!apiKey) {
      throw new Error(
        'a real control plane needs an API key: --api-key-file <path> or AGENT_OPERATOR_API_KEY',
      );
    }

    const realCluster = options.kubeconfig !== undefined || options.context !== undefined;
    let kubeconfigPath: string;
    let kubeConfig: ClusterAccess;
    if (realCluster) {
      const target = await loadKubeTarget({
        ...(options.kubeconfig === undefined ? {} : { kubeconfig: options.kubeconfig }),
        ...(options.context === undefined ? {} : { context: options.context }),
      }).catch((error: unknown) => {
        throw new Error(
          `--kubeconfig: cannot load "${options.kubeconfig ?? 'the default kubeconfig'}": ${error instanceof Error ? error.message : String(error)}`,
        );
      });
      kubeconfigPath = target.origin;
      kubeConfig = target.access;
    } else {
      kubeconfigPath = join(stateDir, 'kubeconfig');
      const kube = await startKubeEmulator({ kubeconfigPath, logger: options.logger });
      closers.push(() => kube.close());
      kubeConfig = await loadClusterAccess({ kind: 'file', path: kubeconfigPath });
    }
    return {
      kubeConfig,
      kubeconfigPath,
      ...(options.context === undefined ? {} : { context: options.context }),
      controlPlaneUrl,
      apiKey,
      adminToken,
      ...(secondRegion === undefined ? {} : { secondRegion }),
      embeddedKube: !realCluster,
      embeddedControlPlane: !options.controlPlaneUrl,
      stateDir,
      close,
    };
  } catch (error) {
    await close();
    if (ownStateDir) await rm(stateDir, { recursive: true, force: true });
    throw error;
  }
}
