// The built-in kinds the emulator serves. Only namespaces, secrets, configmaps, events and
// leases carry rules (builtin-rules.ts); the rest are stored as given, enough for a
// rendered Helm chart or an operator's RBAC to apply.
import { prepareConfigMap, prepareEventsV1, prepareLease, prepareNamespace, prepareSecret } from './builtin-rules.js';
import { coreEventsConverter, eventsV1Converter } from './event-conversion.js';
import { apiVersionOf, storageKeyOf, type PrinterColumn, type ResourceType } from './resource-type.js';

interface BuiltinSpec {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced?: boolean;
  shortNames?: string[];
  categories?: string[];
  statusSubresource?: boolean;
  tracksGeneration?: boolean;
  columns?: PrinterColumn[];
  extraFieldLabels?: string[];
  storageKey?: string;
  storageApiVersion?: string;
  converter?: ResourceType['converter'];
  prepare?: ResourceType['prepare'];
}

const CORE_EVENT_FIELDS = [
  'involvedObject.kind',
  'involvedObject.namespace',
  'involvedObject.name',
  'involvedObject.uid',
  'involvedObject.apiVersion',
  'involvedObject.resourceVersion',
  'involvedObject.fieldPath',
  'reason',
  'reportingComponent',
  'source',
  'type',
];

const SPECS: BuiltinSpec[] = [
  {
    group: '',
    version: 'v1',
    plural: 'namespaces',
    kind: 'Namespace',
    namespaced: false,
    shortNames: ['ns'],
    statusSubresource: true,
    extraFieldLabels: ['status.phase'],
    columns: [{ name: 'Status', type: 'string', jsonPath: '.status.phase', description: 'The status of the namespace' }],
    prepare: prepareNamespace,
  },
  {
    group: '',
    version: 'v1',
    plural: 'secrets',
    kind: 'Secret',
    extraFieldLabels: ['type'],
    columns: [{ name: 'Type', type: 'string', jsonPath: '.type', description: 'Type of the secret' }],
    prepare: prepareSecret,
  },
  { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', shortNames: ['cm'], prepare: prepareConfigMap },
  {
    group: '',
    version: 'v1',
    plural: 'events',
    kind: 'Event',
    shortNames: ['ev'],
    extraFieldLabels: CORE_EVENT_FIELDS,
    converter: coreEventsConverter,
    columns: [
      { name: 'Type', type: 'string', jsonPath: '.type' },
      { name: 'Reason', type: 'string', jsonPath: '.reason' },
      { name: 'Object', type: 'string', jsonPath: '.involvedObject.name' },
      { name: 'Message', type: 'string', jsonPath: '.message' },
    ],
  },
  {
    group: 'events.k8s.io',
    version: 'v1',
    plural: 'events',
    kind: 'Event',
    shortNames: ['ev'],
    storageKey: storageKeyOf('', 'events'),
    storageApiVersion: 'v1',
    converter: eventsV1Converter,
    extraFieldLabels: CORE_EVENT_FIELDS.map((f) => f.replace('involvedObject.', 'regarding.')),
    prepare: prepareEventsV1,
  },
  { group: '', version: 'v1', plural: 'serviceaccounts', kind: 'ServiceAccount', shortNames: ['sa'] },
  {
    group: '',
    version: 'v1',
    plural: 'services',
    kind: 'Service',
    shortNames: ['svc'],
    categories: ['all'],
    statusSubresource: true,
  },
  {
    group: '',
    version: 'v1',
    plural: 'pods',
    kind: 'Pod',
    shortNames: ['po'],
    categories: ['all'],
    statusSubresource: true,
  },
  { group: '', version: 'v1', plural: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', shortNames: ['pvc'], statusSubresource: true },
  {
    group: 'coordination.k8s.io',
    version: 'v1',
    plural: 'leases',
    kind: 'Lease',
    columns: [{ name: 'Holder', type: 'string', jsonPath: '.spec.holderIdentity' }],
    prepare: prepareLease,
  },
  {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    plural: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    statusSubresource: true,
    tracksGeneration: true,
    columns: [{ name: 'Created At', type: 'string', jsonPath: '.metadata.creationTimestamp' }],
  },
  ...['deployments:Deployment:deploy', 'statefulsets:StatefulSet:sts', 'daemonsets:DaemonSet:ds', 'replicasets:ReplicaSet:rs'].map(
    (entry): BuiltinSpec => {
      const [plural = '', kind = '', short = ''] = entry.split(':');
      return { group: 'apps', version: 'v1', plural, kind, shortNames: [short], categories: ['all'], statusSubresource: true, tracksGeneration: true };
    },
  ),
  { group: 'batch', version: 'v1', plural: 'jobs', kind: 'Job', categories: ['all'], statusSubresource: true, tracksGeneration: true },
  { group: 'batch', version: 'v1', plural: 'cronjobs', kind: 'CronJob', shortNames: ['cj'], categories: ['all'], statusSubresource: true, tracksGeneration: true },
  { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'roles', kind: 'Role' },
  { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'rolebindings', kind: 'RoleBinding' },
  { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterroles', kind: 'ClusterRole', namespaced: false },
  { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false },
  { group: 'networking.k8s.io', version: 'v1', plural: 'networkpolicies', kind: 'NetworkPolicy', shortNames: ['netpol'], tracksGeneration: true },
  { group: 'networking.k8s.io', version: 'v1', plural: 'ingresses', kind: 'Ingress', shortNames: ['ing'], statusSubresource: true, tracksGeneration: true },
  { group: 'policy', version: 'v1', plural: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', shortNames: ['pdb'], statusSubresource: true, tracksGeneration: true },
  {
    group: 'autoscaling',
    version: 'v2',
    plural: 'horizontalpodautoscalers',
    kind: 'HorizontalPodAutoscaler',
    shortNames: ['hpa'],
    categories: ['all'],
    statusSubresource: true,
  },
];

function singularOf(kind: string): string {
  return kind.toLowerCase();
}

export function builtinResourceTypes(): ResourceType[] {
  return SPECS.map((spec) => {
    const columns = spec.columns ?? [];
    const type: ResourceType = {
      group: spec.group,
      versions: [spec.version],
      plural: spec.plural,
      singular: singularOf(spec.kind),
      kind: spec.kind,
      listKind: `${spec.kind}List`,
      namespaced: spec.namespaced ?? true,
      shortNames: spec.shortNames ?? [],
      categories: spec.categories ?? [],
      statusSubresource: spec.statusSubresource ?? false,
      tracksGeneration: spec.tracksGeneration ?? false,
      storageKey: spec.storageKey ?? storageKeyOf(spec.group, spec.plural),
      storageApiVersion: spec.storageApiVersion ?? apiVersionOf(spec.group, spec.version),
      extraFieldLabels: spec.extraFieldLabels ?? [],
      printerColumns: () => columns,
    };
    if (spec.converter) type.converter = spec.converter;
    if (spec.prepare) type.prepare = spec.prepare;
    return type;
  });
}
