// The install paths of docs/install.md, run as the page writes them (the blocks marked
// `<!-- tested: ... -->`, read from the page itself so the two cannot drift), with the real
// helm and kubectl on the project's Kubernetes emulator: default values, crds.install=false
// after `kubectl apply -f crds/`, the CRDs handed to Helm, and connections.default.create=true.
// Each install, upgrade and uninstall must exit 0, and uninstall must leave no release record.
import { readdirSync } from 'node:fs';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testedBlock, testedBlocks } from './support/doc-commands.js';
import { RELEASE_NAME, RELEASE_NAMESPACE } from './support/helm.js';
import { type KubeUnderTest, startKube } from './support/kube-emulator.js';
import { HELM, KUBECTL, REPO_ROOT, requireTool } from './support/paths.js';
import { type RunResult, run } from './support/run.js';

const INSTALL_DOC = join(REPO_ROOT, 'docs', 'install.md');
const BLOCKS = testedBlocks(INSTALL_DOC);
// Every CRD the project ships, by name: crds/ holds one file per CRD, named <group>_<plural>.yaml.
const ALL_CRDS = readdirSync(join(REPO_ROOT, 'crds'))
  .filter((file) => file.endsWith('.yaml'))
  .map((file) => {
    const [group = '', plural = ''] = file.replace(/\.yaml$/, '').split('_');
    return `${plural}.${group}`;
  });

let kube: KubeUnderTest;
let home: string;
let workdir: string;

beforeEach(async () => {
  const started = await startKube();
  if (typeof started === 'string') throw new Error(started);
  kube = started;
  home = await mkdtemp(join(tmpdir(), 'install-docs-home-'));
  // The user's checkout as the docs assume it: ./charts, ./crds and the key file ./api-key.txt.
  workdir = await mkdtemp(join(tmpdir(), 'install-docs-cwd-'));
  await symlink(join(REPO_ROOT, 'charts'), join(workdir, 'charts'));
  await symlink(join(REPO_ROOT, 'crds'), join(workdir, 'crds'));
  await writeFile(join(workdir, 'api-key.txt'), 'sk-test-not-a-real-key');
});

afterEach(async () => {
  await kube.stop();
  await rm(home, { recursive: true, force: true });
  await rm(workdir, { recursive: true, force: true });
});

function runCommand([tool, ...args]: string[]): Promise<RunResult> {
  const binary = requireTool(tool === 'helm' ? HELM : KUBECTL);
  return run(binary, args, { cwd: workdir, env: { ...process.env, KUBECONFIG: kube.kubeconfig, HOME: home } });
}

/** Runs every command of a docs block; each must exit 0 with nothing on stderr. */
async function runBlock(name: string): Promise<string> {
  let stdout = '';
  for (const command of testedBlock(BLOCKS, name)) {
    const result = await runCommand(command);
    expect(result.stderr, `${command.join(' ')}`).toBe('');
    expect(result.code, `${command.join(' ')}`).toBe(0);
    stdout += result.stdout;
  }
  return stdout;
}

async function kubectlOut(args: string[]): Promise<string> {
  const result = await kube.kubectl(args);
  expect(result.code, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

/** After `helm uninstall`: the release's objects and its record are gone, the CRDs stay. */
async function expectUninstalled(): Promise<void> {
  const output = await runBlock('uninstall');
  expect(output).toContain(`release "${RELEASE_NAME}" uninstalled`);
  expect(await kubectlOut(['-n', RELEASE_NAMESPACE, 'get', 'secret', '-l', 'owner=helm', '-o', 'name'])).toBe('');
  expect(await kubectlOut(['-n', RELEASE_NAMESPACE, 'get', 'deployment', '-o', 'name'])).toBe('');
  const crds = await kubectlOut(['get', 'crd', '-o', 'name']);
  for (const crd of ALL_CRDS) expect(crds).toContain(`customresourcedefinition.apiextensions.k8s.io/${crd}`);
}

describe('docs/install.md, run on the Kubernetes emulator', () => {
  it('names every CRD of crds/ in the adoption recipe', () => {
    const adoption = testedBlock(BLOCKS, 'adopt-crds');
    for (const verb of ['label', 'annotate']) {
      const command = adoption.find((words) => words[1] === verb);
      expect(command, `kubectl ${verb}`).toBeDefined();
      expect(command?.filter((word) => word.endsWith('.agentplatform.io')).sort()).toEqual([...ALL_CRDS].sort());
    }
  });

  it('installs, upgrades and uninstalls with default values', async () => {
    await runBlock('credentials');
    expect(await runBlock('install')).toContain('STATUS: deployed');
    expect(await runBlock('upgrade')).toContain('REVISION: 2');
    await expectUninstalled();
  });

  it('installs with crds.install=false after kubectl apply -f crds/, upgrades and uninstalls', async () => {
    await runBlock('apply-crds');
    await runBlock('credentials');
    expect(await runBlock('install-without-crds')).toContain('NOTE: crds.install is false');
    // The upgrade keeps crds.install=false: with it back on, Helm would refuse the CRDs it does not own.
    expect(await runBlock('upgrade')).toContain('NOTE: crds.install is false');
    await expectUninstalled();
  });

  it('refuses a plain install after kubectl apply -f crds/, and installs once the recipe hands every CRD to Helm', async () => {
    await runBlock('apply-crds');
    await runBlock('credentials');
    const [install] = testedBlock(BLOCKS, 'install');
    const refused = await runCommand(install ?? []);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      'CustomResourceDefinition "agentdeployments.agentplatform.io" in namespace "" exists and cannot be imported into the current release: invalid ownership metadata',
    );
    expect(await runBlock('adopt-crds')).toContain('STATUS: deployed');
    expect(await runBlock('upgrade')).toContain('REVISION: 2');
    // Helm now owns the CRDs: it keeps them on uninstall by their resource policy.
    expect(await runBlock('uninstall')).toMatch(/kept due to the resource policy/);
    expect(await kubectlOut(['-n', RELEASE_NAMESPACE, 'get', 'secret', '-l', 'owner=helm', '-o', 'name'])).toBe('');
  });

  it('creates the default connection in the first install, adopts it on upgrade and keeps it on uninstall', async () => {
    await runBlock('credentials');
    expect(await runBlock('install-with-default-connection')).toContain('STATUS: deployed');
    const uid = await kubectlOut(['get', 'clusterplatformconnection', 'default', '-o', 'jsonpath={.metadata.uid}']);
    expect(uid).not.toBe('');

    expect(await runBlock('upgrade')).toContain('REVISION: 2');
    // Adopted, not recreated: the same object, now part of the release's manifest.
    expect(await kubectlOut(['get', 'clusterplatformconnection', 'default', '-o', 'jsonpath={.metadata.uid}'])).toBe(uid);
    const manifest = await runCommand(['helm', 'get', 'manifest', RELEASE_NAME, '-n', RELEASE_NAMESPACE]);
    expect(manifest.code, manifest.stderr).toBe(0);
    expect(manifest.stdout).toMatch(/kind: ClusterPlatformConnection\nmetadata:\n {2}name: default/);
    const hooks = await runCommand(['helm', 'get', 'hooks', RELEASE_NAME, '-n', RELEASE_NAMESPACE]);
    expect(hooks.stdout).not.toContain('ClusterPlatformConnection');

    await expectUninstalled();
    expect(await kubectlOut(['get', 'clusterplatformconnection', 'default', '-o', 'jsonpath={.metadata.uid}'])).toBe(uid);
  });
});
