#!/usr/bin/env node
// The development program: every command of the production program (src/cli.ts) plus the demo
// and the emulators. It is the npm package's `agent-operator` bin and what `npm start` runs;
// the image does not contain it (tsconfig.image.json leaves it, src/sim and src/demo out).
import {
  dispatch as dispatchWith,
  isMainModule,
  runCommandLine,
  type CommandTable,
  type Output,
} from './command-line/dispatch.js';
import { PRODUCTION_COMMANDS } from './command-line/production-commands.js';

export type { CommandModule, Output } from './command-line/dispatch.js';

export const DEVELOPMENT_COMMANDS: CommandTable = {
  commands: [
    ...PRODUCTION_COMMANDS.commands,
    {
      words: ['demo'],
      summary: 'start both emulators and the operator, apply the examples, watch them converge',
      load: () => import('./demo/cli.js'),
    },
    {
      words: ['emulate', 'control-plane'],
      summary: 'serve the control-plane emulator',
      load: () => import('./sim/controlplane/cli.js'),
    },
    {
      words: ['emulate', 'kube'],
      summary: 'serve the Kubernetes API server emulator',
      load: () => import('./sim/kube/cli.js'),
    },
  ],
  examples: {
    '': [
      'agent-operator demo                                   # everything locally, no cluster, no account',
      ...(PRODUCTION_COMMANDS.examples[''] ?? []),
      'agent-operator emulate kube --write-kubeconfig ./kubeconfig',
    ],
    emulate: [
      'agent-operator emulate control-plane                  # prints its URL; API key "emulator-key"',
      'agent-operator emulate kube --port 6443 --write-kubeconfig ./kubeconfig',
    ],
  },
};

export function dispatch(argv: string[], output?: Output): Promise<number> {
  return dispatchWith(DEVELOPMENT_COMMANDS, argv, output);
}

if (isMainModule(import.meta.url)) runCommandLine(DEVELOPMENT_COMMANDS);
