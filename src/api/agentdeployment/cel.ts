// Builders for the CEL rules (`x-kubernetes-validations`) that the CRD carries. The rules are
// attached to the zod schemas as metadata, so the schemas stay the single source of truth and
// the generator copies them into the CRD unchanged. Each builder emits only standard CEL
// (has, ==, &&, ||, startsWith, matches, all, exists) so that every Kubernetes version with
// CRD validation rules (1.25+) accepts it.

/** One entry of `x-kubernetes-validations`. */
export interface CelRule {
  /** The CEL expression; `self` is the value of the node, `oldSelf` its previous value. */
  rule: string;
  /** What kubectl prints when the rule is false: names the field and the rule. */
  message: string;
  /** Where the API server reports the error, relative to the node (Kubernetes 1.28+). */
  fieldPath?: string;
}

/** The metadata key under which rules ride on a zod schema; also the CRD's key. */
export const CEL_RULES_KEY = 'x-kubernetes-validations';

export function celRule(rule: string, message: string, fieldPath?: string): CelRule {
  return fieldPath === undefined ? { rule, message } : { rule, message, fieldPath };
}

/** `has(root.a) && has(root.a.b)`: true when every step of `path` is present under `root`. */
export function presence(root: 'self' | 'oldSelf', path: readonly string[]): string {
  return path.map((_, i) => `has(${[root, ...path.slice(0, i + 1)].join('.')})`).join(' && ');
}

function access(root: 'self' | 'oldSelf', path: readonly string[]): string {
  return [root, ...path].join('.');
}

/**
 * A transition rule, placed on an ancestor that always exists on both sides of an update
 * (`spec`), making an optional field immutable in the strong sense: it can be neither
 * changed nor added nor removed after creation. A rule on the field itself would not do:
 * the API server evaluates a transition rule only when both the old and the new value exist.
 */
export function immutableField(path: readonly string[], displayPath: string): CelRule {
  const now = presence('self', path);
  const before = presence('oldSelf', path);
  return celRule(
    `(${now}) == (${before}) && (!(${now}) || ${access('self', path)} == ${access('oldSelf', path)})`,
    `${displayPath} is immutable: it cannot be set, changed or removed after creation`,
    `.${path.join('.')}`,
  );
}

/** A rule on `spec` allowing the field at `path` only when `spec.source` is `source`. */
export function onlyWithSource(path: readonly string[], displayPath: string, source: string): CelRule {
  return celRule(
    `!(${presence('self', path)}) || self.source == '${source}'`,
    `${displayPath} applies only when spec.source is ${source}`,
    `.${path.join('.')}`,
  );
}

/** A rule on `spec` requiring the field at `path` when `spec.source` is `source`. */
export function requiredWithSource(path: readonly string[], displayPath: string, source: string): CelRule {
  return celRule(
    `self.source != '${source}' || (${presence('self', path)})`,
    `${displayPath} is required when spec.source is ${source}`,
    `.${path.join('.')}`,
  );
}

/** A rule on `spec` requiring exactly one of the fields at `paths` when `spec.source` is `source`. */
export function exactlyOneWithSource(
  paths: readonly (readonly string[])[],
  displayPaths: readonly string[],
  source: string,
): CelRule {
  const count = paths.map((path) => `(${presence('self', path)} ? 1 : 0)`).join(' + ');
  return celRule(
    `self.source != '${source}' || ${count} == 1`,
    `exactly one of ${displayPaths.join(' or ')} is required when spec.source is ${source}`,
    `.${paths[0]?.join('.') ?? ''}`,
  );
}
