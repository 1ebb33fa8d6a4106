// The chart's Role/ClusterRole rules are exactly the permissions src/operator/rbac.ts lists,
// for every value set: nothing more (a verb the code never uses only widens what a
// compromised operator could do), nothing less (the operator would fail at run time).
import { describe, expect, it } from 'vitest';
import {
  CONNECTION_CLUSTER_PERMISSIONS,
  CONNECTION_KEY_PERMISSIONS,
  LEADER_ELECTION_PERMISSIONS,
  ORPHAN_RECORD_PERMISSIONS,
  WATCH_PERMISSIONS,
  type PermissionRule,
} from '../../src/operator/rbac.js';
import { RELEASE_NAMESPACE, VALUE_SETS, isUserRole, renderChart, type Manifest } from './support/helm.js';

interface RenderedRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

/** `group/resource verb` for every grant, so that rule grouping does not matter. */
function grants(
  rules: readonly { apiGroups: readonly string[]; resources: readonly string[]; verbs: readonly string[] }[],
): string[] {
  return rules
    .flatMap((rule) =>
      rule.apiGroups.flatMap((group) =>
        rule.resources.flatMap((resource) => rule.verbs.map((verb) => `${group}/${resource} ${verb}`)),
      ),
    )
    .sort();
}

function fromCode(rules: readonly PermissionRule[]): string[] {
  return grants(
    rules.map((rule) => ({ apiGroups: [rule.apiGroup], resources: [rule.resource], verbs: rule.verbs })),
  );
}

function rulesOf(manifest: Manifest): RenderedRule[] {
  return (manifest['rules'] as RenderedRule[] | undefined) ?? [];
}

describe.each(VALUE_SETS)('chart RBAC with $name', (valueSet) => {
  it('equals the permissions listed in src/operator/rbac.ts', async () => {
    const manifests = await renderChart(valueSet);
    const roles = manifests.filter((m) => (m.kind === 'Role' || m.kind === 'ClusterRole') && !isUserRole(m));
    const leaderRoles = roles.filter((m) => m.metadata.name.endsWith('-leader-election'));
    const connectionRoles = roles.filter((m) => m.metadata.name.endsWith('-connections'));
    const keyRoles = roles.filter((m) => m.metadata.name.endsWith('-connection-keys'));
    const orphanRoles = roles.filter((m) => m.metadata.name.endsWith('-orphan-records'));
    const watchRoles = roles.filter(
      (m) => ![leaderRoles, connectionRoles, keyRoles, orphanRoles].some((group) => group.includes(m)),
    );
    expect(orphanRoles.map((m) => `${m.kind} ${m.metadata.namespace ?? ''}`)).toEqual([
      `Role ${RELEASE_NAMESPACE}`,
    ]);
    for (const role of orphanRoles)
      expect(grants(rulesOf(role))).toEqual(fromCode(ORPHAN_RECORD_PERMISSIONS));
    expect(connectionRoles.map((m) => m.kind)).toEqual(['ClusterRole']);
    for (const role of connectionRoles) {
      expect(grants(rulesOf(role))).toEqual(fromCode(CONNECTION_CLUSTER_PERMISSIONS));
    }
    for (const role of keyRoles) {
      expect(role.metadata.namespace).toBe(RELEASE_NAMESPACE);
      expect(grants(rulesOf(role))).toEqual(fromCode(CONNECTION_KEY_PERMISSIONS));
    }
    expect(watchRoles.length).toBeGreaterThan(0);
    for (const role of watchRoles) {
      expect(grants(rulesOf(role)), `${role.kind} ${role.metadata.namespace ?? ''}`).toEqual(
        fromCode(WATCH_PERMISSIONS),
      );
    }
    for (const role of leaderRoles) {
      expect(role.metadata.namespace).toBe(RELEASE_NAMESPACE);
      expect(grants(rulesOf(role))).toEqual(fromCode(LEADER_ELECTION_PERMISSIONS));
    }
  });
});
