// What the server knows about one kind of resource: enough to route a request, answer
// discovery, print a table and decide the write rules (status subresource, generation).
import type { JsonObject, KubeObject } from './kube-object.js';

export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

/** Converts between the stored shape and one served version (e.g. core/v1 vs events.k8s.io/v1 events). */
export interface VersionConverter {
  fromStorage(object: KubeObject): KubeObject;
  toStorage(object: KubeObject): KubeObject;
}

export interface ResourceType {
  group: string;
  /** Served versions, preferred first. */
  versions: string[];
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  statusSubresource: boolean;
  /** Whether metadata.generation is kept (bumped when anything outside metadata/status changes). */
  tracksGeneration: boolean;
  /** apiVersion of the stored form (the CRD's storage version; core v1 for both event APIs). */
  storageApiVersion: string;
  /** Where objects live; two served resources may share one storage (core and events.k8s.io events). */
  storageKey: string;
  /** Field selector labels beyond metadata.name/metadata.namespace, as dotted paths into the object. */
  extraFieldLabels: string[];
  /** Columns for the Table format, after Name; empty means the default (Age only). */
  printerColumns: (version: string) => PrinterColumn[];
  converter?: VersionConverter;
  /** Set for custom resources: the CRD's name and each version's openAPIV3Schema. */
  custom?: { crdName: string; schemas: Map<string, JsonObject> };
  /** Extra checks and defaults of a built-in kind on create and update; throws ApiError. */
  prepare?: (object: KubeObject, old: KubeObject | undefined) => KubeObject;
}

export const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
export const STATUS_VERBS = ['get', 'patch', 'update'];

export function apiVersionOf(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

export function storageKeyOf(group: string, plural: string): string {
  return `${group}/${plural}`;
}
