// The Secrets and ConfigMaps an object's spec names, worked out once per version of the spec.
// Every watch event runs the cache's index functions (the objects by Secret and by ConfigMap)
// and the handlers that let go of values no object references any more, and every pass loads
// the values its spec references. The cache keeps an unchanged spec as the same frozen object
// (structural sharing), so for an annotation touch or a status write these lists are the ones
// worked out last time; building them again was a share of what each no-op reconcile
// allocated (docs/benchmarks.md, nineteenth session).
import type { ReconcilerSpecView } from './object.js';
import { referencedConfigMapNames, referencedSecretNames } from './secrets.js';
import { smokeTestHeaderSecretNames } from './smoke-test-headers.js';

export interface SpecReferences {
  /** The Secrets a pass loads the values of: spec.secrets, spec.envFrom and the smoke test's headers, each once. */
  readonly loadedSecretNames: readonly string[];
  /** The ConfigMaps a pass loads the values of (spec.secrets, spec.envFrom), each once. */
  readonly configMapNames: readonly string[];
  /** `namespace/name` of every Secret the object references, the smoke test's own key too. */
  readonly secretKeys: readonly string[];
  /** `namespace/name` of every ConfigMap the object references. */
  readonly configMapKeys: readonly string[];
}

interface Remembered {
  namespace: string;
  references: SpecReferences;
}

/** Keyed by the spec object: an entry goes when its spec is no longer held anywhere. */
const remembered = new WeakMap<object, Remembered>();

export function specReferences(object: {
  metadata: { namespace: string };
  spec: ReconcilerSpecView;
}): SpecReferences {
  const { spec } = object;
  const { namespace } = object.metadata;
  const known = remembered.get(spec);
  if (known !== undefined && known.namespace === namespace) return known.references;
  const references = referencesOf(spec, namespace);
  // Only a frozen spec (the cache's) stays what it was; one that can still change is not kept.
  if (Object.isFrozen(spec)) remembered.set(spec, { namespace, references });
  return references;
}

function referencesOf(spec: ReconcilerSpecView, namespace: string): SpecReferences {
  const secretNames = unique(referencedSecretNames(spec.secrets, spec.envFrom));
  const headerSecretNames = smokeTestHeaderSecretNames(spec.smokeTest);
  const loadedSecretNames = unique([...secretNames, ...headerSecretNames]);
  const ownKey = spec.smokeTest?.apiKeySecretRef?.name;
  // A changed header Secret runs the smoke test again, and a changed key Secret is read anew:
  // their watch must wake the object as well.
  const indexedSecretNames =
    ownKey === undefined ? loadedSecretNames : unique([...loadedSecretNames, ownKey]);
  const configMapNames = unique(referencedConfigMapNames(spec.secrets, spec.envFrom));
  return Object.freeze({
    loadedSecretNames,
    configMapNames,
    secretKeys: keysIn(namespace, indexedSecretNames),
    configMapKeys: keysIn(namespace, configMapNames),
  });
}

const NONE: readonly string[] = Object.freeze([]);

function unique(names: readonly string[]): readonly string[] {
  return names.length === 0 ? NONE : Object.freeze([...new Set(names)]);
}

function keysIn(namespace: string, names: readonly string[]): readonly string[] {
  return names.length === 0 ? NONE : Object.freeze(names.map((name) => `${namespace}/${name}`));
}
