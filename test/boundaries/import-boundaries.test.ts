// The import boundaries of eslint.config.js (eslint.boundaries.js), checked against the
// project's real lint configuration: each stated boundary fails on an import across it, static
// or dynamic, and lets through what the layout allows on either side of it.
import { ESLint } from 'eslint';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const BOUNDARY_RULES = new Set(['no-restricted-imports', 'no-restricted-syntax']);

// The snippets are linted as if they were files at the given paths, which do not exist, so
// the type-aware parsing (and the rules that need it) is switched off for them; the boundary
// rules need no types.
const eslint = new ESLint({
  cwd: ROOT,
  overrideConfig: {
    languageOptions: { parserOptions: { projectService: false, project: null } },
    rules: { '@typescript-eslint/no-floating-promises': 'off', '@typescript-eslint/no-unused-vars': 'off' },
  },
});

/** The boundary messages for `code` placed at `path`. */
async function violations(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  const messages = result?.messages ?? [];
  const other = messages.filter((m) => !BOUNDARY_RULES.has(m.ruleId ?? ''));
  expect(other, `unexpected lint findings in the snippet for ${path}`).toEqual([]);
  return messages.map((m) => m.message);
}

const staticImport = (specifier: string) =>
  `import { thing } from '${specifier}';\nexport const used = thing;\n`;
const dynamicImport = (specifier: string) => `export const load = () => import('${specifier}');\n`;

describe('import boundaries (eslint.config.js)', () => {
  describe('operator code imports neither the emulators nor the demo', () => {
    it.each([
      ['src/operator/operator.ts', '../sim/kube/index.js'],
      ['src/reconcilers/agentdeployment/reconciler.ts', '../../sim/controlplane/store.js'],
      ['src/operator/operator.ts', '../demo/environment.js'],
      ['src/command-line/production-commands.ts', '../dev-cli.js'],
    ])('%s may not import %s', async (path, specifier) => {
      expect((await violations(path, staticImport(specifier))).join('\n')).toMatch(
        /may not import the emulators/,
      );
    });

    it('fails on a dynamic import() too, as the command tables use', async () => {
      expect(await violations('src/cli.ts', dynamicImport('./sim/kube/cli.js'))).toEqual([
        expect.stringMatching(/may not import the emulators/),
      ]);
      expect(
        await violations('src/command-line/production-commands.ts', dynamicImport('../demo/cli.js')),
      ).toHaveLength(1);
    });

    it('lets operator code import operator code, and the development CLI import the demo', async () => {
      expect(
        await violations('src/operator/operator.ts', staticImport('../controlplane/client/index.js')),
      ).toEqual([]);
      expect(await violations('src/dev-cli.ts', dynamicImport('./demo/cli.js'))).toEqual([]);
      expect(await violations('src/demo/environment.ts', staticImport('../sim/kube/index.js'))).toEqual([]);
    });
  });

  describe('a controller never enters the process (src/operator)', () => {
    it.each([
      ['src/reconcilers/agentdeployment/reconciler.ts', '../../operator/config.js'],
      ['src/reconcilers/connection/setup.ts', '../../operator/operator.js'],
      ['src/reconcilers/agentdeployment/observation/fleet-poller.ts', '../../../operator/config.js'],
    ])('%s may not import %s', async (path, specifier) => {
      expect((await violations(path, staticImport(specifier))).join('\n')).toMatch(
        /never enters the process/,
      );
      expect((await violations(path, dynamicImport(specifier))).join('\n')).toMatch(
        /never enters the process/,
      );
    });

    it('still may not import the emulators, and may import the kit, the API and other controllers', async () => {
      expect(
        (
          await violations('src/reconcilers/connection/setup.ts', staticImport('../../sim/kube/index.js'))
        ).join('\n'),
      ).toMatch(/may not import the emulators/);
      for (const specifier of [
        '../../runtime/reconcile/result.js',
        '../../api/deletion/index.js',
        '../connection/setup.js',
      ])
        expect(await violations('src/reconcilers/tracedeletion/setup.ts', staticImport(specifier))).toEqual(
          [],
        );
    });
  });

  describe('src/runtime knows no agents: it imports nothing of the rest of src/', () => {
    it.each([
      ['src/runtime/controller/controller.ts', '../../api/agentdeployment/types.js'],
      ['src/runtime/manager/manager.ts', '../../reconcilers/agentdeployment/reconciler.js'],
      ['src/runtime/clock.ts', '../operator/operator.js'],
      ['src/runtime/kube/client.ts', '../../connections/registry.js'],
      ['src/runtime/reflector/reflector.ts', '../../controlplane/client/index.js'],
    ])('%s may not import %s', async (path, specifier) => {
      expect((await violations(path, staticImport(specifier))).join('\n')).toMatch(/knows no agents/);
    });

    it('lets it import itself', async () => {
      expect(await violations('src/runtime/controller/controller.ts', staticImport('../clock.js'))).toEqual(
        [],
      );
      expect(await violations('src/runtime/kube/client.ts', staticImport('./objects.js'))).toEqual([]);
    });

    it('lets it import the leaf src/signals, which imports nothing of src/', async () => {
      expect(await violations('src/runtime/clock.ts', staticImport('../signals/abort-fanout.js'))).toEqual(
        [],
      );
      expect(
        await violations('src/runtime/manager/departures.ts', staticImport('../../signals/abort-fanout.js')),
      ).toEqual([]);
      expect(
        (await violations('src/signals/abort-fanout.ts', staticImport('../runtime/clock.js'))).join('\n'),
      ).toMatch(/is a leaf/);
    });
  });

  describe('the emulators share nothing with the operator but its logger', () => {
    it.each([
      ['src/sim/controlplane/store.ts', '../../controlplane/models/index.js'],
      ['src/sim/platform/platform-api.ts', '../../controlplane/client/loopback.js'],
      ['src/sim/agents/index.ts', '../../agentruntime/client.js'],
      ['src/sim/kube/validation/schema.ts', '../../../api/agentdeployment/types.js'],
      ['src/sim/http/http-error.ts', '../../controlplane/models/errors.js'],
    ])('%s may not import %s', async (path, specifier) => {
      expect((await violations(path, staticImport(specifier))).join('\n')).toMatch(
        /share nothing with the operator/,
      );
    });

    it('lets them import the logger', async () => {
      expect(
        await violations('src/sim/kube/server.ts', staticImport('../../observability/logger.js')),
      ).toEqual([]);
      expect(
        await violations('src/sim/kube/handlers/get.ts', staticImport('../../../observability/logger.js')),
      ).toEqual([]);
    });
  });

  describe("one emulator does not import another's files; they share the HTTP kit", () => {
    it.each([
      [
        'src/sim/platform/platform-api.ts',
        '../controlplane/runtime.js',
        /do(es)? not import another's files/,
      ],
      ['src/sim/agents/admin.ts', '../controlplane/store.js', /do(es)? not import another's files/],
      ['src/sim/kube/server.ts', '../platform/platform-api.js', /do(es)? not import another's files/],
      [
        'src/sim/kube/validation/schema.ts',
        '../../controlplane/store.js',
        /do(es)? not import another's files/,
      ],
      ['src/sim/controlplane/index.ts', '../platform/platform-api.js', /through their entry module/],
      ['src/sim/controlplane/index.ts', '../agents/runs.js', /through their entry module/],
      ['src/sim/http/router.ts', '../controlplane/store.js', /imports none of them/],
    ])('%s may not import %s', async (path, specifier, message) => {
      expect((await violations(path, staticImport(specifier))).join('\n')).toMatch(message);
    });

    it('lets every emulator import the kit, and the control plane the entries of what it serves', async () => {
      expect(await violations('src/sim/platform/platform-api.ts', staticImport('../http/router.js'))).toEqual(
        [],
      );
      expect(
        await violations('src/sim/kube/handlers/get.ts', staticImport('../../http/json-nesting.js')),
      ).toEqual([]);
      expect(await violations('src/sim/controlplane/index.ts', staticImport('../platform/index.js'))).toEqual(
        [],
      );
      expect(await violations('src/sim/controlplane/index.ts', staticImport('../agents/index.js'))).toEqual(
        [],
      );
    });
  });
});
