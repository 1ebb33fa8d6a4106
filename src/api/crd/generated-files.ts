// Every file derived from the API's zod schemas (AgentDeployment and the two connections): the CRD (committed copy and the
// Helm chart's copy) and the generated part of the field reference. One list, so that
// writing and drift checking cannot disagree about what is generated.
import { readFile, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { lineDiff } from './line-diff.js';
import {
  CRD_FILE_PATHS,
  renderAgentDeploymentCrd,
  renderConnectionCrdFiles,
  renderDeletionCrdFiles,
} from './render.js';
import { REFERENCE_DOC_PATH, withFieldReference } from './reference-doc.js';
import { CONNECTION_REFERENCE_DOC_PATH, withConnectionFieldReference } from './connection-reference-doc.js';

export interface GeneratedFile {
  /** Repository-relative path. */
  path: string;
  content: string;
}

export interface Drift {
  path: string;
  /** A diff-like description: what the committed file has (-) and what the generator makes (+). */
  message: string;
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** What every generated file must contain, given the repository at `root`. */
export async function expectedFiles(root: string): Promise<GeneratedFile[]> {
  const crd = renderAgentDeploymentCrd();
  const files: GeneratedFile[] = CRD_FILE_PATHS.map((path) => ({ path, content: crd }));
  const doc = await readIfExists(join(root, REFERENCE_DOC_PATH));
  if (doc === undefined) throw new Error(`${REFERENCE_DOC_PATH} is missing; it holds the hand-written prose`);
  files.push({ path: REFERENCE_DOC_PATH, content: withFieldReference(doc) });
  files.push(...renderConnectionCrdFiles(), ...renderDeletionCrdFiles());
  const connectionDoc = await readIfExists(join(root, CONNECTION_REFERENCE_DOC_PATH));
  if (connectionDoc === undefined)
    throw new Error(`${CONNECTION_REFERENCE_DOC_PATH} is missing; it holds the hand-written prose`);
  files.push({ path: CONNECTION_REFERENCE_DOC_PATH, content: withConnectionFieldReference(connectionDoc) });
  return files;
}

/** Writes the generated files under `root`; returns the paths whose content changed. */
export async function writeGeneratedFiles(root: string): Promise<string[]> {
  const changed: string[] = [];
  for (const file of await expectedFiles(root)) {
    const target = join(root, file.path);
    if ((await readIfExists(target)) === file.content) continue;
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.content);
    changed.push(file.path);
  }
  return changed;
}

/** The generated files under `root` that differ from what the generator makes now. */
export async function checkGeneratedFiles(root: string): Promise<Drift[]> {
  const drifts: Drift[] = [];
  for (const file of await expectedFiles(root)) {
    const actual = await readIfExists(join(root, file.path));
    if (actual === undefined) drifts.push({ path: file.path, message: 'missing' });
    else if (actual !== file.content)
      drifts.push({ path: file.path, message: lineDiff(file.content, actual) });
  }
  return drifts;
}
