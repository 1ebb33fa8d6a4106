import { describe, expect, it } from 'vitest';
import { specPathOf } from '../../src/reconcilers/agentdeployment/spec-paths.js';

describe('specPathOf', () => {
  it.each([
    ['source_config.resource_spec', 'spec.sourceConfig.resourceSpec'],
    ['source_config.listener_config.cluster_namespace', 'spec.sourceConfig.listenerConfig.clusterNamespace'],
    ['source_revision_config.image_uri', 'spec.sourceRevisionConfig.imageUri'],
    ['source_config.build_on_push', 'spec.sourceConfig.buildOnPush'],
    ['secrets', 'spec.secrets'],
    ['name', 'spec.name'],
  ])('names %s as the user wrote it: %s', (wire, spec) => {
    expect(specPathOf(wire)).toBe(spec);
  });
});
