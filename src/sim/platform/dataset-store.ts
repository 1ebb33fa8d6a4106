// Datasets and their examples, versioned: every change to an example appends a state stamped
// with the time it was made, so any past version can be read back (`as_of`). A soft delete
// appends a tombstone (inputs and outputs NULL) and leaves the history alone; a hard delete
// erases inputs, outputs and metadata from every state, then tombstones the current one.
import { hasAnyPair } from './trace-store.js';

export interface DatasetRecord {
  id: string;
  name: string;
  description: string | null;
  tenant_id: string;
  data_type: string;
  extra: Record<string, unknown>;
  created_at: number;
  modified_at: number;
}

export interface ExampleState {
  /** When this state became current (clock ms). */
  at: number;
  inputs: Record<string, unknown> | null;
  outputs: Record<string, unknown> | null;
  metadata: Record<string, unknown> | null;
  split: string[];
  deleted: boolean;
}

export interface ExampleRecord {
  id: string;
  dataset_id: string;
  created_at: number;
  history: ExampleState[];
}

/** One example's update: the fields given replace the current ones; the rest carry over. */
export interface ExampleChange {
  id: string;
  fields: Partial<Pick<ExampleState, 'inputs' | 'outputs' | 'metadata' | 'split'>>;
}

export interface ExampleView {
  example: ExampleRecord;
  state: ExampleState;
}

class Workspace {
  readonly datasets = new Map<string, DatasetRecord>();
  readonly examples = new Map<string, ExampleRecord>();
}

/** The state current at `asOf`, or undefined when the example did not exist yet. */
export function stateAt(example: ExampleRecord, asOf: number): ExampleState | undefined {
  let current: ExampleState | undefined;
  for (const state of example.history) {
    if (state.at > asOf) break;
    current = state;
  }
  return current;
}

export class DatasetStore {
  private readonly workspaces = new Map<string, Workspace>();

  reset(): void {
    this.workspaces.clear();
  }

  private workspace(tenantId: string): Workspace {
    let workspace = this.workspaces.get(tenantId);
    if (workspace === undefined) {
      workspace = new Workspace();
      this.workspaces.set(tenantId, workspace);
    }
    return workspace;
  }

  createDataset(dataset: DatasetRecord): void {
    this.workspace(dataset.tenant_id).datasets.set(dataset.id, dataset);
  }

  dataset(tenantId: string, id: string): DatasetRecord | undefined {
    return this.workspace(tenantId).datasets.get(id);
  }

  datasets(tenantId: string): DatasetRecord[] {
    return [...this.workspace(tenantId).datasets.values()];
  }

  example(tenantId: string, id: string): ExampleRecord | undefined {
    return this.workspace(tenantId).examples.get(id);
  }

  /** Every example ever added to the dataset, deleted ones included. */
  examplesOf(tenantId: string, datasetId: string): ExampleRecord[] {
    return [...this.workspace(tenantId).examples.values()].filter((e) => e.dataset_id === datasetId);
  }

  putExample(tenantId: string, example: ExampleRecord, now: number): void {
    const workspace = this.workspace(tenantId);
    workspace.examples.set(example.id, example);
    this.touch(workspace, example.dataset_id, now);
  }

  /** Examples of one dataset (or of all) visible at `asOf`, in creation order. */
  visibleAt(tenantId: string, asOf: number, datasetId?: string): ExampleView[] {
    const views: ExampleView[] = [];
    for (const example of this.workspace(tenantId).examples.values()) {
      if (datasetId !== undefined && example.dataset_id !== datasetId) continue;
      const state = stateAt(example, asOf);
      if (state !== undefined && !state.deleted) views.push({ example, state });
    }
    return views;
  }

  /** The examples created before `asOf`, in any dataset, whose state at `asOf` has ANY of the pairs. */
  search(tenantId: string, asOf: number, metadata: Record<string, unknown>): ExampleView[] {
    return this.visibleAt(tenantId, asOf).filter(
      (view) => view.example.created_at < asOf && hasAnyPair(view.state.metadata ?? {}, metadata),
    );
  }

  /**
   * Appends a new current state to each example with the given fields replaced (the others
   * carried over), all stamped `now`: the earlier states stay readable as earlier versions.
   * The caller has checked that every example exists now.
   */
  update(tenantId: string, changes: readonly ExampleChange[], now: number): void {
    const workspace = this.workspace(tenantId);
    for (const change of changes) {
      const example = workspace.examples.get(change.id);
      const current = example?.history[example.history.length - 1];
      if (example === undefined || current === undefined) continue;
      example.history.push({
        ...current,
        ...change.fields,
        at: Math.max(now, current.at),
        deleted: false,
      });
      this.touch(workspace, example.dataset_id, now);
    }
  }

  /** Deletes the examples that exist now (current state not deleted); returns their ids. */
  delete(tenantId: string, ids: readonly string[], hard: boolean, now: number): string[] {
    const workspace = this.workspace(tenantId);
    const deleted: string[] = [];
    for (const id of ids) {
      const example = workspace.examples.get(id);
      const current = example?.history[example.history.length - 1];
      if (example === undefined || current === undefined) continue;
      // A hard delete also reaches an example that is already soft-deleted: its history still holds data.
      if (current.deleted && !hard) continue;
      if (hard) {
        for (const state of example.history) {
          state.inputs = null;
          state.outputs = null;
          state.metadata = null;
        }
      }
      if (!current.deleted) {
        example.history.push({
          ...current,
          at: Math.max(now, current.at),
          inputs: null,
          outputs: null,
          deleted: true,
        });
      }
      this.touch(workspace, example.dataset_id, now);
      deleted.push(id);
    }
    return deleted;
  }

  private touch(workspace: Workspace, datasetId: string, now: number): void {
    const dataset = workspace.datasets.get(datasetId);
    if (dataset !== undefined) dataset.modified_at = Math.max(dataset.modified_at, now);
  }
}
