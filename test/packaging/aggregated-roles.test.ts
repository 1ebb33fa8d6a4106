// The ClusterRoles the chart adds to Kubernetes' built-in view, edit and admin roles: who may
// read, who may run agents, and that only admin may delete platform data.
import { describe, expect, it } from 'vitest';
import { type Manifest, isUserRole, renderChart } from './support/helm.js';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

const KINDS = ['agentdeployments', 'platformconnections', 'clusterplatformconnections', 'tracedeletions', 'exampledeletions'];
const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];

/** `resource verb` that a built-in role gains: every user role carrying its aggregation label. */
function grantedTo(manifests: Manifest[], builtIn: 'view' | 'edit' | 'admin'): Set<string> {
  const granted = new Set<string>();
  for (const role of manifests.filter(isUserRole)) {
    if (role.metadata.labels?.[`rbac.authorization.k8s.io/aggregate-to-${builtIn}`] !== 'true') continue;
    for (const rule of role['rules'] as Rule[]) {
      expect(rule.apiGroups).toEqual(['agentplatform.io']);
      for (const resource of rule.resources) for (const verb of rule.verbs) granted.add(`${resource} ${verb}`);
    }
  }
  return granted;
}

describe('aggregated user roles', () => {
  it('let view read every kind and write none', async () => {
    const view = grantedTo(await renderChart({}), 'view');
    expect([...view].sort()).toEqual(KINDS.flatMap((kind) => ['get', 'list', 'watch'].map((verb) => `${kind} ${verb}`)).sort());
  });

  it('let edit run agents and connections, but not delete platform data', async () => {
    const edit = grantedTo(await renderChart({}), 'edit');
    for (const verb of WRITE) {
      expect(edit).toContain(`agentdeployments ${verb}`);
      expect(edit).toContain(`platformconnections ${verb}`);
      expect(edit).not.toContain(`tracedeletions ${verb}`);
      expect(edit).not.toContain(`exampledeletions ${verb}`);
      expect(edit).not.toContain(`clusterplatformconnections ${verb}`);
    }
    expect(edit).toContain('tracedeletions get');
  });

  it('let admin also create TraceDeletions and ExampleDeletions', async () => {
    const admin = grantedTo(await renderChart({}), 'admin');
    for (const verb of WRITE) {
      for (const kind of ['agentdeployments', 'platformconnections', 'tracedeletions', 'exampledeletions']) {
        expect(admin).toContain(`${kind} ${verb}`);
      }
      expect(admin).not.toContain(`clusterplatformconnections ${verb}`);
    }
  });

  it('are left out with rbac.aggregateClusterRoles=false', async () => {
    expect((await renderChart({ set: ['rbac.aggregateClusterRoles=false'] })).filter(isUserRole)).toEqual([]);
  });
});
