// The import boundaries the README's layout section states, as lint rules:
//
// 1. Operator code (src/ except src/sim, src/demo and src/dev-cli.ts) imports neither an
//    emulator nor the demo: the image is compiled without them.
// 2. src/runtime, the controller kit, imports nothing from the rest of src/ ("runtime knows
//    no agents"): no API types, reconcilers, operator, connections or control-plane client;
//    only src/signals, the leaf helpers for AbortSignals that the kit and the control-plane
//    client (which does not depend on the kit) share.
// 6. src/signals is a leaf: it imports nothing from src/.
// 3. The emulators (src/sim) import nothing of the operator but its logger: they validate with
//    schemas of their own, so that a wrong field in the client's models is not agreed to by
//    the emulator that tests it.
// 5. A controller (src/reconcilers) never enters the process (src/operator): a reconcile,
//    from the watch event to the status write, stays in its folder and the shared kit.
// 4. One emulator does not reach into another's files: they share the HTTP kit (src/sim/http),
//    and the control-plane emulator, which serves the platform data API and the agent
//    runtimes on its address, uses those through their entry module (index.ts) only.
//
// A rule is a regular expression over the import's specifier; a relative specifier's meaning
// depends on the importing file's depth, so each rule is stated per directory depth. Static
// imports are checked by no-restricted-imports, `import()` by no-restricted-syntax. Flat config
// does not merge one rule's options across blocks, so every file matches one block only.
// test/boundaries/import-boundaries.test.ts shows each rule fails on a violating import.

const EMULATORS = ['controlplane', 'platform', 'agents', 'kube'];
/** What an emulator may import from the operator's code, relative to src/. */
const OPERATOR_CODE_FOR_EMULATORS = ['observability/logger.js'];
/** Which other emulators' entry modules an emulator may import (it serves them). */
const COMPOSES = { controlplane: ['platform', 'agents'] };

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const up = (levels) => '\\.\\./'.repeat(levels);

function restrict(files, rules, ignores = []) {
  const patterns = rules.map(({ regex, message }) => ({ regex, message }));
  return {
    files,
    ignores,
    rules: {
      'no-restricted-imports': ['error', { patterns }],
      'no-restricted-syntax': [
        'error',
        ...rules.map(({ regex, message }) => ({
          // esquery ends a regular expression at any '/', escaped or not.
          selector: `ImportExpression[source.value=/${regex.replace(/\//g, '\\x2F')}/]`,
          message,
        })),
      ],
    },
  };
}

const DEVELOPMENT_ONLY = {
  regex: '(^|/)(sim|demo)/|(^|/)dev-cli\\.js$',
  message:
    'Operator code may not import the emulators (src/sim), the demo (src/demo) or the development CLI: the image is built without them.',
};

/** 1. Operator code: everything under src/ but the development-only code, src/runtime (2), the controllers (5) and the leaf (6). */
const operatorCode = restrict(
  ['src/**/*.ts'],
  [DEVELOPMENT_ONLY],
  ['src/sim/**', 'src/demo/**', 'src/dev-cli.ts', 'src/runtime/**', 'src/reconcilers/**', 'src/signals/**'],
);

/** 6. src/signals: a specifier that climbs out of it. */
const signalsLeaf = restrict(
  ['src/signals/*.ts'],
  [
    {
      regex: '^\\.\\./',
      message:
        'src/signals is a leaf shared by the controller kit and the clients: it imports nothing from the rest of src/.',
    },
  ],
);

/** 5. The controllers, one folder each: 1 holds, and nothing of the process is imported. */
const controllers = restrict(
  ['src/reconcilers/*/*.ts', 'src/reconcilers/*/*/*.ts'],
  [
    DEVELOPMENT_ONLY,
    {
      regex: '^(\\.\\./)+operator/',
      message:
        'A controller (src/reconcilers) never enters the process (src/operator): take what it needs as set-up options, or move the rule into its folder.',
    },
  ],
);

/** 2. src/runtime at each depth: a specifier that climbs out of src/runtime. */
const runtimeKit = [1, 2].map((depth) =>
  restrict(
    [`src/runtime/${'*/'.repeat(depth - 1)}*.ts`],
    [
      {
        regex: `^${up(depth)}(?!signals/)`,
        message:
          'src/runtime is the controller kit and knows no agents: it imports nothing from the rest of src/ (API types, reconcilers, operator, connections, clients).',
      },
    ],
  ),
);

/** 3 and 4: each emulator, at each depth of its directory. */
function emulatorRules(emulator, depth) {
  const allowedOperatorCode = OPERATOR_CODE_FOR_EMULATORS.map(escape).join('|');
  const others = EMULATORS.filter((e) => e !== emulator);
  const composed = COMPOSES[emulator] ?? [];
  const reached = others.filter((e) => !composed.includes(e));
  const rules = [
    {
      regex: `^${up(depth + 1)}(?!(${allowedOperatorCode})$)`,
      message: `The emulators share nothing with the operator but its logger (${OPERATOR_CODE_FOR_EMULATORS.join(', ')}): validate with the emulator's own schemas, and take HTTP helpers from src/sim/http.`,
    },
  ];
  if (reached.length > 0) {
    rules.push({
      regex: `^${up(depth)}(${reached.join('|')})/`,
      message: `One emulator does not import another's files: share code through the HTTP kit (src/sim/http).`,
    });
  }
  if (composed.length > 0) {
    rules.push({
      regex: `^${up(depth)}(${composed.join('|')})/(?!index\\.js$)`,
      message: `The ${emulator} emulator serves ${composed.join(' and ')} through their entry module (index.ts) only.`,
    });
  }
  if (emulator === 'http') {
    rules.push({
      regex: `^${up(depth)}(${EMULATORS.join('|')})/`,
      message: 'The HTTP kit (src/sim/http) is shared by the emulators and imports none of them.',
    });
  }
  return rules;
}

const emulators = [...EMULATORS, 'http'].flatMap((emulator) =>
  [1, 2].map((depth) =>
    restrict([`src/sim/${emulator}/${'*/'.repeat(depth - 1)}*.ts`], emulatorRules(emulator, depth)),
  ),
);

export const importBoundaries = [operatorCode, controllers, signalsLeaf, ...runtimeKit, ...emulators];
