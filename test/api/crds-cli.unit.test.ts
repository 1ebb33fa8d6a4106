// `agent-operator crds`: prints the CRD, writes the generated files, and detects drift.
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/api/crds-cli.js';
import { agentDeploymentCrd } from '../../src/api/crd/agentdeployment-crd.js';
import { lineDiff } from '../../src/api/crd/line-diff.js';
import {
  CRD_FILE_PATHS,
  GENERATED_HEADER,
  renderAgentDeploymentCrd,
  renderConnectionCrdFiles,
  renderDeletionCrdFiles,
} from '../../src/api/crd/render.js';
import { CONNECTION_REFERENCE_DOC_PATH } from '../../src/api/crd/connection-reference-doc.js';
import { BEGIN_MARKER, END_MARKER, REFERENCE_DOC_PATH } from '../../src/api/crd/reference-doc.js';

const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t) },
    stdout: () => out.join(''),
    stderr: () => err.join(''),
  };
}

const temporaryDirectories: string[] = [];
afterEach(async () => {
  await Promise.all(temporaryDirectories.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** A scratch repository holding a copy of the committed generated files. */
async function scratchRepository(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'crds-cli-'));
  temporaryDirectories.push(dir);
  const generatedCrds = [...renderConnectionCrdFiles(), ...renderDeletionCrdFiles()].map((file) => file.path);
  for (const path of [
    ...CRD_FILE_PATHS,
    REFERENCE_DOC_PATH,
    ...generatedCrds,
    CONNECTION_REFERENCE_DOC_PATH,
  ]) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await cp(join(repositoryRoot, path), join(dir, path));
  }
  return dir;
}

describe('agent-operator crds', () => {
  it('prints every CRD the operator serves, one YAML document each, AgentDeployment first', async () => {
    const run = capture();
    expect(await main([], run.io)).toBe(0);
    expect(run.stdout().startsWith(GENERATED_HEADER)).toBe(true);
    const documents = yaml.loadAll(run.stdout()) as Array<{ metadata: { name: string } }>;
    expect(documents.map((crd) => crd.metadata.name)).toEqual([
      'agentdeployments.agentplatform.io',
      'platformconnections.agentplatform.io',
      'clusterplatformconnections.agentplatform.io',
      'tracedeletions.agentplatform.io',
      'exampledeletions.agentplatform.io',
    ]);
    expect(documents[0]).toEqual(agentDeploymentCrd());
    // Exactly the committed files, so `crds | kubectl apply -f -` applies what the chart ships.
    const committed = [
      ...CRD_FILE_PATHS.slice(0, 1),
      ...[...renderConnectionCrdFiles(), ...renderDeletionCrdFiles()]
        .map((file) => file.path)
        .filter((path) => path.startsWith('crds/')),
    ];
    const fromFiles = await Promise.all(
      committed.map(async (path) => yaml.load(await readFile(join(repositoryRoot, path), 'utf8'))),
    );
    expect(documents).toEqual(fromFiles);
  });

  it('prints the one CRD named by plural, kind, short name or full name; an unknown name exits 2 listing them', async () => {
    for (const name of ['agentdeployments', 'AgentDeployment', 'agd', 'agentdeployments.agentplatform.io']) {
      const run = capture();
      expect(await main([name], run.io), name).toBe(0);
      expect(yaml.loadAll(run.stdout()), name).toEqual([agentDeploymentCrd()]);
    }
    const connection = capture();
    expect(await main(['pconn'], connection.io)).toBe(0);
    expect((yaml.load(connection.stdout()) as { metadata: { name: string } }).metadata.name).toBe(
      'platformconnections.agentplatform.io',
    );
    const unknown = capture();
    expect(await main(['widgets'], unknown.io)).toBe(2);
    expect(unknown.stderr()).toContain(
      'no CRD named "widgets"; known: agentdeployments, platformconnections',
    );
  });

  it('the committed files are up to date (the CI check passes on this repository)', async () => {
    const run = capture();
    expect(await main(['--check', '--root', repositoryRoot], run.io)).toBe(0);
    expect(run.stderr()).toBe('');
    for (const path of CRD_FILE_PATHS)
      expect(await readFile(join(repositoryRoot, path), 'utf8')).toBe(renderAgentDeploymentCrd());
  });

  it('--check exits 1 and shows a diff when a committed CRD was edited by hand', async () => {
    const dir = await scratchRepository();
    const target = join(dir, CRD_FILE_PATHS[1]);
    const original = await readFile(target, 'utf8');
    await writeFile(target, original.replace('maximum: 16', 'maximum: 32'));
    const run = capture();
    expect(await main(['--check', '--root', dir], run.io)).toBe(1);
    expect(run.stderr()).toContain(`--- ${CRD_FILE_PATHS[1]} (committed)`);
    expect(run.stderr()).toMatch(/^- +maximum: 32$/m);
    expect(run.stderr()).toMatch(/^\+ +maximum: 16$/m);
    expect(run.stderr()).toContain('agent-operator crds --write');
    expect(run.stderr()).not.toMatch(/^--- crds\//m);
  });

  it('--check reports a missing file and a stale field reference', async () => {
    const dir = await scratchRepository();
    await rm(join(dir, CRD_FILE_PATHS[0]));
    const doc = await readFile(join(dir, REFERENCE_DOC_PATH), 'utf8');
    await writeFile(
      join(dir, REFERENCE_DOC_PATH),
      doc.replace('Minimum number of replicas.', 'Stale words.'),
    );
    const run = capture();
    expect(await main(['--check', '--root', dir], run.io)).toBe(1);
    expect(run.stderr()).toContain(
      `--- ${CRD_FILE_PATHS[0]} (committed)\n+++ ${CRD_FILE_PATHS[0]} (generated)\nmissing`,
    );
    expect(run.stderr()).toContain('Stale words.');
  });

  it('--write repairs the drift, keeps the hand-written prose, and then --check passes', async () => {
    const dir = await scratchRepository();
    const docPath = join(dir, REFERENCE_DOC_PATH);
    const doc = await readFile(docPath, 'utf8');
    const prose = doc.slice(0, doc.indexOf(BEGIN_MARKER));
    await writeFile(docPath, `${prose}${BEGIN_MARKER}\nold table\n${END_MARKER}\n`);
    await rm(join(dir, CRD_FILE_PATHS[1]));
    const write = capture();
    expect(await main(['--write', '--root', dir], write.io)).toBe(0);
    expect(write.stdout()).toContain(`wrote ${CRD_FILE_PATHS[1]}`);
    expect(write.stdout()).toContain(`wrote ${REFERENCE_DOC_PATH}`);
    const rewritten = await readFile(docPath, 'utf8');
    expect(rewritten.startsWith(prose)).toBe(true);
    expect(rewritten).toContain('| `spec.sourceConfig.resourceSpec.cpu` | number |');
    const check = capture();
    expect(await main(['--check', '--root', dir], check.io)).toBe(0);
  });

  it('rejects unknown flags and --write with --check, with exit code 2', async () => {
    const unknown = capture();
    expect(await main(['--frobnicate'], unknown.io)).toBe(2);
    expect(unknown.stderr()).toContain('--frobnicate');
    const both = capture();
    expect(await main(['--write', '--check'], both.io)).toBe(2);
    expect(both.stderr()).toContain('cannot be used together');
  });
});

describe('lineDiff', () => {
  it('shows removed and added lines with context', () => {
    const expected = ['a', 'b', 'c', 'd', 'e'].join('\n');
    const actual = ['a', 'b', 'X', 'd', 'e'].join('\n');
    expect(lineDiff(expected, actual, 1)).toBe(['@@ line 2 @@', '  b', '- X', '+ c', '  d'].join('\n'));
  });

  it('handles inserted lines without reporting the rest of the file', () => {
    const expected = ['a', 'b', 'c'].join('\n');
    const actual = ['a', 'new', 'b', 'c'].join('\n');
    expect(lineDiff(expected, actual, 0)).toBe(['@@ line 2 @@', '- new'].join('\n'));
  });
});
