// Every CEL rule of the generated CRD: it type-checks against the schema's own types, and
// it accepts the good objects and rejects the bad ones, with the message naming the field.
// Each case runs twice: through a direct cel-js evaluation of the rules, and through the
// Kubernetes emulator's full admission (prune, default, OpenAPI, list types, CEL).
import { describe, expect, it } from 'vitest';
import {
  ID_OR_NAME_FIELDS,
  IMMUTABLE_FIELDS,
  SOURCE_REQUIRED_FIELDS,
  SOURCE_SPECIFIC_FIELDS,
} from '../../src/api/agentdeployment/index.js';
import { agentDeploymentOpenApiSchema } from '../../src/api/crd/agentdeployment-crd.js';
import type { JsonSchema } from '../../src/api/crd/structural-schema.js';
import { prepareCustomResource, type JSONSchemaProps } from '../../src/sim/kube/validation/index.js';
import { validateAgentDeploymentSpec } from '../../src/api/validation/validate-spec.js';
import { celViolations, ruleSites, typeCheckRules } from './support/cel-harness.js';
import {
  externalContainerObject,
  INTEGRATION_ID,
  LISTENER_ID,
  repoHostObject,
  type TestObject,
} from './support/fixtures.js';

const schema = agentDeploymentOpenApiSchema();
const SHAPE =
  'spec.secrets[] must set exactly one of value, valueFrom.secretKeyRef {name, key} or valueFrom.configMapKeyRef {name, key}';
const specSchema = schema.properties?.spec as JsonSchema;
// The emulator caches compilation by identity: one object for every call.
const emulatorSchema = schema as unknown as JSONSchemaProps;

function cel(object: TestObject, old?: TestObject): string[] {
  return celViolations(specSchema, object.spec, old?.spec, 'spec').map((v) => v.message);
}

/** The operator's own check (src/api/validation), which must agree with the API server. */
function operatorCheck(object: TestObject, old?: TestObject): string[] {
  return validateAgentDeploymentSpec(object.spec, old?.spec).map((p) => p.message);
}

function admit(object: TestObject, old?: TestObject) {
  return prepareCustomResource({
    schema: emulatorSchema,
    object: structuredClone(object) as unknown as Record<string, unknown>,
    ...(old === undefined ? {} : { oldObject: structuredClone(old) as unknown as Record<string, unknown> }),
    fieldValidation: 'Strict',
  });
}

function emulatorMessages(object: TestObject, old?: TestObject): string[] {
  const result = admit(object, old);
  return [
    ...(result.strictError === undefined ? [] : [result.strictError]),
    ...result.causes.map((c) => `${c.field}: ${c.message}`),
  ];
}

/** Sets `value` at `path` below `root`, creating objects on the way. */
function setPath(root: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = root;
  path.slice(0, -1).forEach((key) => {
    node[key] ??= {};
    node = node[key] as Record<string, unknown>;
  });
  node[path[path.length - 1] ?? ''] = value;
}

function deletePath(root: Record<string, unknown>, path: readonly string[]): void {
  let node: Record<string, unknown> | undefined = root;
  for (const key of path.slice(0, -1)) node = node?.[key] as Record<string, unknown> | undefined;
  if (node) delete node[path[path.length - 1] ?? ''];
}

function mutate(base: () => TestObject, change: (spec: Record<string, unknown>) => void): TestObject {
  const object = base();
  change(object.spec as Record<string, unknown>);
  return object;
}

describe('CEL rules compile', () => {
  const results = typeCheckRules(specSchema, 'spec');

  it('finds the rules of every concern', () => {
    // 11 immutable + 13 applicability + 3 required + 2 id-or-name + 1 tag on spec; 3 mount rules; per Container 2 x 2; secrets 2; envFrom 2 (one source, prefix); smokeTest.expect 1; smokeTest.headers[].name 1;
    // 2 UUIDs; resourceSpec: 2 scale pairs, 7 limit pairs, 1 container names across the pod.
    expect(results.length).toBe(11 + 13 + 3 + 2 + 1 + 3 + 4 + 2 + 2 + 1 + 1 + 2 + 2 + 7 + 1);
  });

  it.each(results.map((r) => [`${r.site.path}: ${r.site.message}`, r] as const))('%s', (_, result) => {
    expect(result.error).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(result.type).toBe('bool');
  });

  it('rejects a rule naming a field the schema does not have (the check is real)', () => {
    const broken: JsonSchema = structuredClone(specSchema);
    broken['x-kubernetes-validations'] = [{ rule: "self.sourceConfg.repoUrl == ''", message: 'typo' }];
    expect(typeCheckRules(broken, 'spec').every((r) => r.valid)).toBe(false);
  });

  it('every field the generated rules test with has() exists in the schema', () => {
    // has() of a missing field type-checks in cel-js, so the paths are checked here.
    for (const path of [...IMMUTABLE_FIELDS, ...SOURCE_SPECIFIC_FIELDS.map((f) => f.path)]) {
      let node: JsonSchema | undefined = specSchema;
      for (const key of path) node = node?.properties?.[key];
      expect(node, path.join('.')).toBeDefined();
    }
  });

  it('every rule message names a field', () => {
    for (const site of ruleSites(specSchema, 'spec')) {
      expect(site.message).toMatch(/(spec\.|resourceSpec\.|env\[\]\.)[A-Za-z[\].]+/);
    }
  });
});

describe('good objects pass', () => {
  it.each([
    ['repo_host', repoHostObject],
    ['external_container', externalContainerObject],
  ] as const)('%s is accepted by the rules and by the emulator', (_, make) => {
    expect(cel(make())).toEqual([]);
    expect(operatorCheck(make())).toEqual([]);
    const result = admit(make());
    expect(result.strictError).toBeUndefined();
    expect(result.causes).toEqual([]);
  });

  it('a minimal object gets the defaults of deletionPolicy, tracingProjectDeletionPolicy, suspend, adoptExisting, managementPolicy and the config objects', () => {
    const minimal: TestObject = { ...repoHostObject(), spec: { source: 'internal_container' } };
    const result = admit(minimal);
    expect(result.causes).toEqual([]);
    expect(result.object.spec).toEqual({
      source: 'internal_container',
      sourceConfig: {},
      sourceRevisionConfig: {},
      deletionPolicy: 'Delete',
      tracingProjectDeletionPolicy: 'Retain',
      suspend: false,
      adoptExisting: false,
      managementPolicy: 'Full',
    });
  });

  it('a smoke test is accepted and gets timeoutSeconds 20 by default', () => {
    const object = mutate(externalContainerObject, (spec) =>
      setPath(spec, ['smokeTest'], {
        input: { messages: [{ role: 'user', content: 'ping' }] },
        expect: { jsonPath: '$.messages[-1].content', equals: 'pong' },
      }),
    );
    expect(cel(object)).toEqual([]);
    expect(operatorCheck(object)).toEqual([]);
    const result = admit(object);
    expect(result.causes).toEqual([]);
    expect(result.object.spec).toMatchObject({ smokeTest: { timeoutSeconds: 20 } });
  });

  it('a plain value and a configMapKeyRef in spec.secrets are accepted, next to a secretKeyRef and envFrom', () => {
    const object = mutate(repoHostObject, (s) =>
      setPath(
        s,
        ['secrets'],
        [
          { name: 'LOG_LEVEL', value: 'info' },
          { name: 'EMPTY', value: '' },
          { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
          { name: 'REGION', valueFrom: { configMapKeyRef: { name: 'settings', key: 'region' } } },
        ],
      ),
    );
    setPath(
      object.spec,
      ['envFrom'],
      [{ prefix: 'APP_', configMapRef: { name: 'settings' } }, { secretRef: { name: 's' } }],
    );
    expect(cel(object)).toEqual([]);
    expect(operatorCheck(object)).toEqual([]);
    const result = admit(object);
    expect(result.strictError).toBeUndefined();
    expect(result.causes).toEqual([]);
  });

  it('buildOnPush false with a tag repoRef is allowed', () => {
    const object = mutate(repoHostObject, (spec) => {
      setPath(spec, ['sourceConfig', 'buildOnPush'], false);
      setPath(spec, ['sourceRevisionConfig', 'repoRef'], 'refs/tags/v1.2.0');
    });
    expect(cel(object)).toEqual([]);
    expect(emulatorMessages(object)).toEqual([]);
  });
});

/** A valid value for each source-specific field, to put it where it does not apply. */
const VALUE_FOR: Record<string, unknown> = {
  'sourceConfig.integrationId': INTEGRATION_ID,
  'sourceConfig.repoUrl': 'https://github.com/example/x',
  'sourceConfig.deploymentType': 'prod',
  'sourceConfig.buildOnPush': false,
  'sourceRevisionConfig.repoRef': 'main',
  'sourceRevisionConfig.graphConfigPath': 'langgraph.json',
  'sourceConfig.customUrl': 'https://x.example.com',
  'sourceConfig.resourceSpec': { cpu: 1 },
  'sourceConfig.listenerId': LISTENER_ID,
  'sourceConfig.listenerRef': { name: 'eu-cluster' },
  'sourceConfig.integrationRef': { name: 'github' },
  'sourceConfig.listenerConfig': { clusterNamespace: 'ns' },
  'sourceRevisionConfig.imageUri': 'registry/x:1',
};

describe('source applicability', () => {
  const cases = SOURCE_SPECIFIC_FIELDS.flatMap(({ path, source }) =>
    (['repo_host', 'external_container', 'internal_container'] as const)
      .filter((other) => other !== source)
      .map((other) => [`${path.join('.')} with source ${other}`, path, source, other] as const),
  );

  it.each(cases)('%s is rejected', (_, path, source, other) => {
    const base = other === 'repo_host' ? repoHostObject : externalContainerObject;
    const object = mutate(base, (spec) => {
      spec.source = other;
      if (other === 'internal_container') {
        spec.sourceConfig = {};
        spec.sourceRevisionConfig = {};
      }
      setPath(spec, path, VALUE_FOR[path.join('.')]);
    });
    const expected = `spec.${path.join('.')} applies only when spec.source is ${source}`;
    expect(cel(object)).toEqual([expected]);
    expect(operatorCheck(object)).toEqual([expected]);
    expect(emulatorMessages(object).join('\n')).toContain(expected);
  });
});

describe('fields a source requires', () => {
  it.each(
    SOURCE_REQUIRED_FIELDS.map(
      ({ path, source }) => [`${source} without ${path.join('.')}`, path, source] as const,
    ),
  )('%s is rejected, naming the field', (_, path, source) => {
    const object = mutate(source === 'repo_host' ? repoHostObject : externalContainerObject, (spec) => {
      const parent = path
        .slice(0, -1)
        .reduce<Record<string, unknown>>((node, key) => node[key] as Record<string, unknown>, spec);
      delete parent[path[path.length - 1] ?? ''];
    });
    const expected = `spec.${path.join('.')} is required when spec.source is ${source}`;
    expect(cel(object)).toEqual([expected]);
    expect(operatorCheck(object)).toEqual([expected]);
    expect(emulatorMessages(object)).toEqual([
      `spec.${path.join('.')}: Invalid value: "object": ${expected}`,
    ]);
  });

  it('covers what the control plane requires: integration, repository and ref for repo_host; listener and image for external_container', () => {
    expect(SOURCE_REQUIRED_FIELDS.map(({ path, source }) => `${source}:${path.join('.')}`).sort()).toEqual([
      'external_container:sourceRevisionConfig.imageUri',
      'repo_host:sourceConfig.repoUrl',
      'repo_host:sourceRevisionConfig.repoRef',
    ]);
  });
});

describe('an id or its name: exactly one', () => {
  const cases = ID_OR_NAME_FIELDS.flatMap(({ id, ref, source }) => {
    const base = source === 'repo_host' ? repoHostObject : externalContainerObject;
    const expected = `exactly one of spec.${id.join('.')} or spec.${ref.join('.')} is required when spec.source is ${source}`;
    const neither = mutate(base, (spec) => deletePath(spec, id));
    const both = mutate(base, (spec) => setPath(spec, ref, VALUE_FOR[ref.join('.')]));
    const byName = mutate(base, (spec) => {
      deletePath(spec, id);
      setPath(spec, ref, VALUE_FOR[ref.join('.')]);
    });
    const admission = `spec.${id.join('.')}: Invalid value: "object": ${expected}`;
    return [
      [`${source} with neither`, neither, [expected], [admission]],
      [`${source} with both`, both, [expected], [admission]],
      [`${source} with the name only`, byName, [], []],
    ] as const;
  });

  it.each(cases)('%s', (_, object, expected, admission) => {
    expect(cel(object)).toEqual(expected);
    expect(operatorCheck(object)).toEqual(expected);
    expect(emulatorMessages(object)).toEqual(admission);
  });

  it('a name is immutable like the id it stands for', () => {
    const named = mutate(externalContainerObject, (spec) => {
      deletePath(spec, ['sourceConfig', 'listenerId']);
      setPath(spec, ['sourceConfig', 'listenerRef'], { name: 'us-cluster' });
    });
    const renamed = mutate(
      () => structuredClone(named),
      (spec) => setPath(spec, ['sourceConfig', 'listenerRef'], { name: 'eu-cluster' }),
    );
    const expected =
      'spec.sourceConfig.listenerRef.name is immutable: it cannot be set, changed or removed after creation';
    expect(cel(renamed, named)).toEqual([expected]);
    expect(operatorCheck(renamed, named)).toEqual([expected]);
  });
});

/** Name, object, the rule's message, and (when the zod schema catches it first) the operator check's field. */
const INVALID: [string, TestObject, string, string?][] = [
  [
    'buildOnPush true with a tag repoRef',
    mutate(repoHostObject, (spec) => setPath(spec, ['sourceRevisionConfig', 'repoRef'], 'refs/tags/v1')),
    'spec.sourceConfig.buildOnPush cannot be true when spec.sourceRevisionConfig.repoRef is a tag (starts with refs/tags/)',
  ],
  [
    'an env name that starts with a digit',
    mutate(externalContainerObject, (spec) =>
      setPath(
        spec,
        ['sourceConfig', 'resourceSpec', 'sidecars'],
        [{ name: 'x', image: 'i', env: [{ name: '1ABC', value: 'v' }] }],
      ),
    ),
    'env[].name must be a C identifier ([A-Za-z_][A-Za-z0-9_]*)',
  ],
  [
    'an env name with a dash, in an init container',
    mutate(externalContainerObject, (spec) =>
      setPath(
        spec,
        ['sourceConfig', 'resourceSpec', 'initContainers'],
        [{ name: 'x', image: 'i', env: [{ name: 'MY-VAR', value: 'v' }] }],
      ),
    ),
    'env[].name must be a C identifier ([A-Za-z_][A-Za-z0-9_]*)',
  ],
  [
    'valueFrom with a non-empty value',
    mutate(externalContainerObject, (spec) =>
      setPath(
        spec,
        ['sourceConfig', 'resourceSpec', 'sidecars'],
        [
          {
            name: 'x',
            image: 'i',
            env: [{ name: 'A', value: 'v', valueFrom: { fieldRef: { fieldPath: 'x' } } }],
          },
        ],
      ),
    ),
    'env[].valueFrom cannot be used when env[].value is non-empty',
  ],
  [
    'a top-level mount of an undeclared volume',
    mutate(externalContainerObject, (spec) =>
      setPath(spec, ['sourceConfig', 'resourceSpec', 'volumeMounts'], [{ name: 'missing', mountPath: '/m' }]),
    ),
    'resourceSpec.volumeMounts[].name must name a volume declared in resourceSpec.volumes',
  ],
  [
    'a mount when no volume is declared at all',
    mutate(externalContainerObject, (spec) =>
      setPath(spec, ['sourceConfig', 'resourceSpec'], {
        volumeMounts: [{ name: 'config', mountPath: '/m' }],
      }),
    ),
    'resourceSpec.volumeMounts[].name must name a volume declared in resourceSpec.volumes',
  ],
  [
    'an init container mount of an undeclared volume',
    mutate(externalContainerObject, (spec) =>
      setPath(
        spec,
        ['sourceConfig', 'resourceSpec', 'initContainers'],
        [{ name: 'x', image: 'i', volumeMounts: [{ name: 'nope', mountPath: '/n' }] }],
      ),
    ),
    'resourceSpec.initContainers[].volumeMounts[].name must name a volume declared in resourceSpec.volumes',
  ],
  [
    'a sidecar mount of an undeclared volume',
    mutate(externalContainerObject, (spec) =>
      setPath(
        spec,
        ['sourceConfig', 'resourceSpec', 'sidecars'],
        [{ name: 'x', image: 'i', volumeMounts: [{ name: 'nope', mountPath: '/n' }] }],
      ),
    ),
    'resourceSpec.sidecars[].volumeMounts[].name must name a volume declared in resourceSpec.volumes',
  ],
  [
    'a secret name that is not a C identifier',
    mutate(repoHostObject, (spec) =>
      setPath(
        spec,
        ['secrets'],
        [{ name: 'openai-key', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
      ),
    ),
    'spec.secrets[].name must be a C identifier ([A-Za-z_][A-Za-z0-9_]*): it becomes an environment variable',
  ],
  [
    'a secret without secretKeyRef',
    mutate(repoHostObject, (spec) => setPath(spec, ['secrets'], [{ name: 'A', valueFrom: {} }])),
    SHAPE,
  ],
  [
    'a secret with both secretKeyRef and configMapKeyRef',
    mutate(repoHostObject, (spec) =>
      setPath(
        spec,
        ['secrets'],
        [
          {
            name: 'A',
            valueFrom: { secretKeyRef: { name: 's', key: 'k' }, configMapKeyRef: { name: 'c', key: 'k' } },
          },
        ],
      ),
    ),
    SHAPE,
  ],
  [
    'an envFrom entry with no source',
    mutate(repoHostObject, (spec) => setPath(spec, ['envFrom'], [{ prefix: 'APP_' }])),
    'spec.envFrom[] must set exactly one of secretRef {name} or configMapRef {name}',
  ],
  [
    'an envFrom entry with two sources',
    mutate(repoHostObject, (spec) =>
      setPath(spec, ['envFrom'], [{ secretRef: { name: 's' }, configMapRef: { name: 'c' } }]),
    ),
    'spec.envFrom[] must set exactly one of secretRef {name} or configMapRef {name}',
  ],
  [
    'an envFrom prefix that is not a C identifier',
    mutate(repoHostObject, (spec) =>
      setPath(spec, ['envFrom'], [{ prefix: 'app-', configMapRef: { name: 'c' } }]),
    ),
    'spec.envFrom[].prefix must be a C identifier ([A-Za-z_][A-Za-z0-9_]*): it starts environment variable names',
  ],
  [
    'a secret with neither value nor valueFrom',
    mutate(repoHostObject, (spec) => setPath(spec, ['secrets'], [{ name: 'A' }])),
    SHAPE,
  ],
  [
    'a secret with both value and valueFrom',
    mutate(repoHostObject, (spec) =>
      setPath(
        spec,
        ['secrets'],
        [{ name: 'A', value: 'x', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
      ),
    ),
    SHAPE,
  ],
  [
    'a smoke-test jsonPath without equals',
    mutate(repoHostObject, (spec) =>
      setPath(spec, ['smokeTest'], {
        input: { messages: [{ role: 'user', content: 'ping' }] },
        expect: { jsonPath: '$.messages[-1].content' },
      }),
    ),
    'spec.smokeTest.expect.jsonPath and spec.smokeTest.expect.equals go together: set both or neither',
  ],
];

describe('rules reject bad objects with a message naming the field', () => {
  it.each(INVALID)('%s', (_, object, message, schemaField) => {
    expect(cel(object)).toContain(message);
    if (schemaField === undefined) expect(operatorCheck(object)).toContain(message);
    else expect(validateAgentDeploymentSpec(object.spec).map((p) => p.field)).toContain(schemaField);
    // A real API server skips the CEL rules of an object that already fails its schema (here a
    // required field), so the emulator names the schema's field instead of the rule's message.
    expect(emulatorMessages(object).join('\n')).toContain(schemaField ?? message);
  });
});

describe('OpenAPI bounds reject bad objects in the emulator', () => {
  const smokeTest = (extra: Record<string, unknown>) =>
    mutate(repoHostObject, (s) =>
      setPath(s, ['smokeTest'], { input: { messages: [{ role: 'user', content: 'ping' }] }, ...extra }),
    );
  const bad: [string, TestObject, RegExp][] = [
    ['smokeTest.timeoutSeconds of 0', smokeTest({ timeoutSeconds: 0 }), /smokeTest\.timeoutSeconds/],
    ['smokeTest.timeoutSeconds above 600', smokeTest({ timeoutSeconds: 601 }), /smokeTest\.timeoutSeconds/],
    [
      'a smoke-test input without messages',
      smokeTest({ input: { messages: [] } }),
      /smokeTest\.input\.messages/,
    ],
    [
      'a smoke-test jsonPath that is not a path',
      smokeTest({ expect: { jsonPath: 'messages', equals: 'x' } }),
      /smokeTest\.expect\.jsonPath/,
    ],
    [
      'cpu below 0.1',
      mutate(externalContainerObject, (s) => setPath(s, ['sourceConfig', 'resourceSpec', 'cpu'], 0.05)),
      /resourceSpec\.cpu/,
    ],
    [
      'cpu above 8',
      mutate(externalContainerObject, (s) => setPath(s, ['sourceConfig', 'resourceSpec', 'cpu'], 8.5)),
      /resourceSpec\.cpu/,
    ],
    [
      'queueCpu above 8',
      mutate(externalContainerObject, (s) => setPath(s, ['sourceConfig', 'resourceSpec', 'queueCpu'], 9)),
      /queueCpu/,
    ],
    [
      'cacheCpu below 0.1',
      mutate(externalContainerObject, (s) => setPath(s, ['sourceConfig', 'resourceSpec', 'cacheCpu'], 0)),
      /cacheCpu/,
    ],
    [
      'cpuLimit above 16',
      mutate(externalContainerObject, (s) => setPath(s, ['sourceConfig', 'resourceSpec', 'cpuLimit'], 17)),
      /cpuLimit/,
    ],
    [
      'queueCpuLimit above 16',
      mutate(externalContainerObject, (s) =>
        setPath(s, ['sourceConfig', 'resourceSpec', 'queueCpuLimit'], 16.5),
      ),
      /queueCpuLimit/,
    ],
    [
      'cacheCpuLimit below 0.1',
      mutate(externalContainerObject, (s) =>
        setPath(s, ['sourceConfig', 'resourceSpec', 'cacheCpuLimit'], 0.01),
      ),
      /cacheCpuLimit/,
    ],
    [
      'a negative minScale',
      mutate(externalContainerObject, (s) => setPath(s, ['sourceConfig', 'resourceSpec', 'minScale'], -1)),
      /minScale/,
    ],
    ['an unknown source', mutate(repoHostObject, (s) => setPath(s, ['source'], 'git')), /spec\.source/],
    [
      'an unknown deletionPolicy',
      mutate(repoHostObject, (s) => setPath(s, ['deletionPolicy'], 'Keep')),
      /deletionPolicy/,
    ],
    [
      'an unknown imagePullPolicy',
      mutate(externalContainerObject, (s) =>
        setPath(
          s,
          ['sourceConfig', 'resourceSpec', 'sidecars'],
          [{ name: 'x', image: 'i', imagePullPolicy: 'Sometimes' }],
        ),
      ),
      /imagePullPolicy/,
    ],
    [
      'a sidecar restartPolicy Never',
      mutate(externalContainerObject, (s) =>
        setPath(
          s,
          ['sourceConfig', 'resourceSpec', 'sidecars'],
          [{ name: 'x', image: 'i', restartPolicy: 'Never' }],
        ),
      ),
      /restartPolicy/,
    ],
    [
      'two secrets of the same name',
      mutate(repoHostObject, (s) =>
        setPath(
          s,
          ['secrets'],
          [
            { name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'a' } } },
            { name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'b' } } },
          ],
        ),
      ),
      /secrets\[1\]/,
    ],
    [
      'two volumes of the same name',
      mutate(externalContainerObject, (s) =>
        setPath(
          s,
          ['sourceConfig', 'resourceSpec', 'volumes'],
          [
            { name: 'v', emptyDir: {} },
            { name: 'v', emptyDir: {} },
          ],
        ),
      ),
      /volumes\[1\]/,
    ],
    [
      'a volume name that is not a DNS label',
      mutate(externalContainerObject, (s) =>
        setPath(s, ['sourceConfig', 'resourceSpec', 'volumes'], [{ name: 'Bad_Name' }]),
      ),
      /volumes\[0\]\.name/,
    ],
    [
      'an integrationId that is not a uuid',
      mutate(repoHostObject, (s) => setPath(s, ['sourceConfig', 'integrationId'], 'abc')),
      /integrationId/,
    ],
  ];

  it.each(bad)('%s', (_, object, field) => {
    const messages = emulatorMessages(object);
    expect(messages.join('\n')).toMatch(field);
  });

  it.each(bad.filter(([name]) => !name.includes('same name')))(
    'the operator check also rejects %s, naming the field',
    (_, object, field) => {
      const problems = validateAgentDeploymentSpec(object.spec);
      expect(problems.map((p) => `${p.field}: ${p.message}`).join('\n')).toMatch(field);
    },
  );

  it('never echoes a value in the error of an entry with both value and valueFrom', () => {
    const object = mutate(repoHostObject, (s) =>
      setPath(
        s,
        ['secrets'],
        [{ name: 'A', value: 'sk-plain-SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
      ),
    );
    expect(emulatorMessages(object)).not.toEqual([]);
    expect(emulatorMessages(object).join('\n')).not.toContain('sk-plain-SECRET');
    expect(JSON.stringify(validateAgentDeploymentSpec(object.spec))).not.toContain('sk-plain-SECRET');
  });
});

describe('transition rules (updates)', () => {
  const immutable: [string, () => TestObject, (spec: Record<string, unknown>) => void, string][] = [
    [
      'changing spec.name',
      externalContainerObject,
      (s) => setPath(s, ['name'], 'other'),
      'spec.name is immutable',
    ],
    ['adding spec.name', repoHostObject, (s) => setPath(s, ['name'], 'repo-agent'), 'spec.name is immutable'],
    ['removing spec.name', externalContainerObject, (s) => deletePath(s, ['name']), 'spec.name is immutable'],
    [
      'changing spec.source',
      repoHostObject,
      (s) => setPath(s, ['source'], 'internal_container'),
      'spec.source is immutable',
    ],
    [
      'changing integrationId',
      repoHostObject,
      (s) => setPath(s, ['sourceConfig', 'integrationId'], LISTENER_ID),
      'spec.sourceConfig.integrationId is immutable',
    ],
    [
      'removing repoUrl',
      repoHostObject,
      (s) => deletePath(s, ['sourceConfig', 'repoUrl']),
      'spec.sourceConfig.repoUrl is immutable',
    ],
    [
      'changing deploymentType',
      repoHostObject,
      (s) => setPath(s, ['sourceConfig', 'deploymentType'], 'prod'),
      'spec.sourceConfig.deploymentType is immutable',
    ],
    [
      'changing listenerId',
      externalContainerObject,
      (s) => setPath(s, ['sourceConfig', 'listenerId'], INTEGRATION_ID),
      'spec.sourceConfig.listenerId is immutable',
    ],
    [
      'changing clusterNamespace',
      externalContainerObject,
      (s) => setPath(s, ['sourceConfig', 'listenerConfig', 'clusterNamespace'], 'other'),
      'spec.sourceConfig.listenerConfig.clusterNamespace is immutable',
    ],
    [
      'removing listenerConfig with its clusterNamespace',
      externalContainerObject,
      (s) => deletePath(s, ['sourceConfig', 'listenerConfig']),
      'spec.sourceConfig.listenerConfig.clusterNamespace is immutable',
    ],
    [
      'removing the whole sourceConfig',
      repoHostObject,
      (s) => deletePath(s, ['sourceConfig']),
      'spec.sourceConfig.integrationId is immutable',
    ],
  ];

  it.each(immutable)('%s is rejected', (_, base, change, message) => {
    const old = base();
    const updated = mutate(base, change);
    expect(cel(updated, old).join('\n')).toContain(message);
    expect(operatorCheck(updated, old).join('\n')).toContain(message);
    expect(emulatorMessages(updated, old).join('\n')).toContain(message);
    // The same object is fine as a create: transition rules need an old object.
    expect(cel(updated).join('\n')).not.toContain('immutable');
  });

  const allowed: [string, () => TestObject, (spec: Record<string, unknown>) => void][] = [
    ['a new repoRef', repoHostObject, (s) => setPath(s, ['sourceRevisionConfig', 'repoRef'], 'release')],
    ['buildOnPush turned off', repoHostObject, (s) => setPath(s, ['sourceConfig', 'buildOnPush'], false)],
    [
      'a new image',
      externalContainerObject,
      (s) => setPath(s, ['sourceRevisionConfig', 'imageUri'], 'registry/x:2'),
    ],
    ['a new cpu', externalContainerObject, (s) => setPath(s, ['sourceConfig', 'resourceSpec', 'cpu'], 2)],
    [
      'a new customUrl',
      externalContainerObject,
      (s) => setPath(s, ['sourceConfig', 'customUrl'], 'https://new.example.com'),
    ],
    ['no secrets any more', externalContainerObject, (s) => deletePath(s, ['secrets'])],
    [
      'suspend and Orphan',
      repoHostObject,
      (s) => Object.assign(s, { suspend: true, deletionPolicy: 'Orphan' }),
    ],
  ];

  it.each(allowed)('%s is accepted', (_, base, change) => {
    const old = base();
    const updated = mutate(base, change);
    expect(cel(updated, old)).toEqual([]);
    expect(operatorCheck(updated, old)).toEqual([]);
    expect(emulatorMessages(updated, old)).toEqual([]);
  });
});
