// CustomResourceDefinitions: the checks and defaults the real server applies on write, the
// status it reports once the names are served (NamesAccepted, Established), and the
// ResourceType that serves the custom resources.
import { invalid, type StatusCause } from './api-error.js';
import { isJsonObject, nowTimestamp, type JsonObject, type KubeObject } from './kube-object.js';
import { ALL_VERBS, apiVersionOf, storageKeyOf, type PrinterColumn, type ResourceType } from './resource-type.js';
import type { CustomResourceValidator } from './validation-adapter.js';
import { compareVersionPriority } from './version-priority.js';

export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

interface CrdNames {
  plural?: string;
  singular?: string;
  kind?: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

interface CrdVersion {
  name?: string;
  served?: boolean;
  storage?: boolean;
  schema?: { openAPIV3Schema?: JsonObject };
  subresources?: { status?: unknown; scale?: unknown };
  additionalPrinterColumns?: PrinterColumn[];
}

interface CrdSpec {
  group?: string;
  names?: CrdNames;
  scope?: string;
  versions?: CrdVersion[];
}

function specOf(crd: KubeObject): CrdSpec {
  return (isJsonObject(crd['spec']) ? crd['spec'] : {}) as CrdSpec;
}

function required(field: string): StatusCause {
  return { reason: 'FieldValueRequired', field, message: 'Required value' };
}

function checkSpec(crd: KubeObject, validator: CustomResourceValidator): StatusCause[] {
  const spec = specOf(crd);
  const causes: StatusCause[] = [];
  if (!spec.group) causes.push(required('spec.group'));
  if (!spec.names?.plural) causes.push(required('spec.names.plural'));
  if (!spec.names?.kind) causes.push(required('spec.names.kind'));
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'spec.scope',
      message: `Unsupported value: ${JSON.stringify(spec.scope ?? '')}: supported values: "Cluster", "Namespaced"`,
    });
  }
  const expectedName = `${spec.names?.plural ?? ''}.${spec.group ?? ''}`;
  if (spec.group && spec.names?.plural && crd.metadata.name !== expectedName) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'metadata.name',
      message: `Invalid value: ${JSON.stringify(crd.metadata.name ?? '')}: must be spec.names.plural+"."+spec.group`,
    });
  }
  const versions = spec.versions ?? [];
  if (versions.length === 0) causes.push(required('spec.versions'));
  const storageCount = versions.filter((v) => v.storage === true).length;
  if (versions.length > 0 && storageCount !== 1) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.versions',
      message: `Invalid value: ${JSON.stringify(versions.map((v) => ({ name: v.name, storage: v.storage })))}: must have exactly one version marked as storage version`,
    });
  }
  versions.forEach((version, index) => {
    const base = `spec.versions[${index}]`;
    if (!version.name) causes.push(required(`${base}.name`));
    const schema = version.schema?.openAPIV3Schema;
    if (!schema) {
      causes.push({ reason: 'FieldValueRequired', field: `${base}.schema.openAPIV3Schema`, message: 'Required value: schemas are required' });
      return;
    }
    const schemaBase = `${base}.schema.openAPIV3Schema`;
    for (const cause of validator.validateCrdSchema(schema)) {
      // The validation module reports paths under spec.versions[0]; re-anchor them on this version.
      const anchored = cause.field.replace(/^spec\.versions\[\d+\]\.schema\.openAPIV3Schema/, schemaBase);
      const field = anchored.startsWith('spec.') ? anchored : anchored ? `${schemaBase}.${anchored}` : schemaBase;
      causes.push({ ...cause, field });
    }
  });
  return causes;
}

function condition(type: string, reason: string, message: string, old: JsonObject[] | undefined, now: string): JsonObject {
  const previous = old?.find((c) => c['type'] === type && c['status'] === 'True');
  return { type, status: 'True', lastTransitionTime: previous?.['lastTransitionTime'] ?? now, reason, message };
}

/** The `prepare` rule of the customresourcedefinitions resource. */
export function prepareCrd(validator: CustomResourceValidator, clock: () => number) {
  return (crd: KubeObject, old: KubeObject | undefined): KubeObject => {
    const causes = checkSpec(crd, validator);
    if (causes.length > 0) throw invalid('apiextensions.k8s.io', 'CustomResourceDefinition', crd.metadata.name ?? '', causes);
    const spec = specOf(crd);
    const kind = spec.names?.kind ?? '';
    const names: CrdNames = { ...spec.names, singular: spec.names?.singular ?? kind.toLowerCase(), listKind: spec.names?.listKind ?? `${kind}List` };
    const storage = spec.versions?.find((v) => v.storage)?.name ?? '';
    const oldStatus = (old?.['status'] ?? {}) as { conditions?: JsonObject[]; storedVersions?: string[] };
    const storedVersions = [...new Set([...(oldStatus.storedVersions ?? []), storage])];
    const now = nowTimestamp(clock);
    const finalizers = crd.metadata.finalizers ?? [];
    return {
      ...crd,
      metadata: {
        ...crd.metadata,
        finalizers: old || finalizers.includes(CRD_CLEANUP_FINALIZER) ? finalizers : [...finalizers, CRD_CLEANUP_FINALIZER],
      },
      spec: { conversion: { strategy: 'None' }, ...spec, names },
      status: {
        conditions: [
          condition('NamesAccepted', 'NoConflicts', 'no conflicts found', oldStatus.conditions, now),
          condition('Established', 'InitialNamesAccepted', 'the initial names have been accepted', oldStatus.conditions, now),
        ],
        acceptedNames: names,
        storedVersions,
      },
    };
  };
}

/** The ResourceType serving a CRD's custom resources, or undefined when it serves no version. */
export function resourceTypeOfCrd(crd: KubeObject): ResourceType | undefined {
  const spec = specOf(crd);
  const served = (spec.versions ?? []).filter((v) => v.served !== false && v.name);
  if (served.length === 0 || !spec.group || !spec.names?.plural || !spec.names.kind) return undefined;
  const schemas = new Map<string, JsonObject>();
  const columns = new Map<string, PrinterColumn[]>();
  for (const version of served) {
    const name = version.name ?? '';
    if (version.schema?.openAPIV3Schema) schemas.set(name, version.schema.openAPIV3Schema);
    columns.set(name, version.additionalPrinterColumns ?? []);
  }
  const storage = spec.versions?.find((v) => v.storage)?.name ?? served[0]?.name ?? '';
  const kind = spec.names.kind;
  return {
    group: spec.group,
    versions: served.map((v) => v.name ?? '').sort(compareVersionPriority),
    plural: spec.names.plural,
    singular: spec.names.singular ?? kind.toLowerCase(),
    kind,
    listKind: spec.names.listKind ?? `${kind}List`,
    namespaced: spec.scope !== 'Cluster',
    shortNames: spec.names.shortNames ?? [],
    categories: spec.names.categories ?? [],
    statusSubresource: served.some((v) => v.subresources?.status !== undefined),
    tracksGeneration: true,
    storageApiVersion: apiVersionOf(spec.group, storage),
    storageKey: storageKeyOf(spec.group, spec.names.plural),
    extraFieldLabels: [],
    printerColumns: (version) => columns.get(version) ?? [],
    custom: { crdName: crd.metadata.name ?? '', schemas },
  };
}

export { ALL_VERBS };
