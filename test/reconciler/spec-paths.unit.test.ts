import { describe, expect, it } from 'vitest';
import { specPathOf, withSpecPaths } from '../../src/reconcilers/agentdeployment/spec-paths.js';

describe('specPathOf', () => {
  it.each([
    ['source_config.resource_spec', 'spec.sourceConfig.resourceSpec'],
    ['source_config.resource_spec.min_scale', 'spec.sourceConfig.resourceSpec.minScale'],
    ['source_config.resource_spec.queue_cpu_limit', 'spec.sourceConfig.resourceSpec.queueCpuLimit'],
    ['source_config.listener_config.cluster_namespace', 'spec.sourceConfig.listenerConfig.clusterNamespace'],
    ['source_revision_config.image_uri', 'spec.sourceRevisionConfig.imageUri'],
    ['source_config.build_on_push', 'spec.sourceConfig.buildOnPush'],
    ['secrets', 'spec.secrets'],
    ['secrets[2].value', 'spec.secrets[2].value'],
    ['name', 'spec.name'],
    // Indices stay; below a Kubernetes-shaped list the names are Kubernetes' own.
    [
      'source_config.resource_spec.volume_mounts[0].name',
      'spec.sourceConfig.resourceSpec.volumeMounts[0].name',
    ],
    [
      'source_config.resource_spec.sidecars[1].volumeMounts[0].name',
      'spec.sourceConfig.resourceSpec.sidecars[1].volumeMounts[0].name',
    ],
    // The location of a validation error starts with the request body.
    ['body.source_config.listener_id', 'spec.sourceConfig.listenerId'],
  ])('names %s as the user wrote it: %s', (wire, spec) => {
    expect(specPathOf(wire)).toBe(spec);
  });
});

describe('withSpecPaths', () => {
  it.each([
    [
      'a 400 naming a resource field',
      'POST /v2/deployments: HTTP 400: source_config.resource_spec.min_scale: a minimum exceeds its maximum',
      'POST /v2/deployments: HTTP 400: spec.sourceConfig.resourceSpec.minScale: a minimum exceeds its maximum',
    ],
    [
      'a 422 with several locations',
      'PATCH /v2/deployments/{deployment_id}: HTTP 422: body.source_config.listener_id: must be a UUID; body.secrets[0].value: field required; and 2 more',
      'PATCH /v2/deployments/{deployment_id}: HTTP 422: spec.sourceConfig.listenerId: must be a UUID; spec.secrets[0].value: field required; and 2 more',
    ],
    [
      'a request refused before sending',
      'POST /v2/deployments: rejected before sending: body.source_revision_config.image_uri: Too small',
      'POST /v2/deployments: rejected before sending: spec.sourceRevisionConfig.imageUri: Too small',
    ],
    [
      'a wire path inside the rule',
      'POST /v2/deployments: HTTP 400: source_config.build_on_push: source_config.build_on_push cannot be enabled with a tag ref',
      'POST /v2/deployments: HTTP 400: spec.sourceConfig.buildOnPush: spec.sourceConfig.buildOnPush cannot be enabled with a tag ref',
    ],
    [
      'a bare name as a location, and as a word',
      'POST /v2/deployments: HTTP 400: name: a deployment of that name already exists in this tenant',
      'POST /v2/deployments: HTTP 400: spec.name: a deployment of that name already exists in this tenant',
    ],
    [
      'words that are field names, not locations',
      'POST /v2/deployments: HTTP 400: required for this source',
      'POST /v2/deployments: HTTP 400: required for this source',
    ],
  ])('%s', (_, wire, spec) => {
    expect(withSpecPaths(wire)).toBe(spec);
  });

  it('leaves the route template alone', () => {
    const message =
      'GET /v2/deployments/{deployment_id}/revisions/{revision_id}: HTTP 400: the control plane refused the request as invalid';
    expect(withSpecPaths(message)).toBe(message);
  });
});
