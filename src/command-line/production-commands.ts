// The commands of the production program: the operator and the tools an operator's user runs
// against a real cluster and control plane. Nothing here may load an emulator or the demo;
// the image is compiled without them (tsconfig.image.json), and the lint rule in
// eslint.config.js fails on an import of src/sim or src/demo from here.
import type { CommandTable } from './dispatch.js';

export const PRODUCTION_COMMANDS: CommandTable = {
  commands: [
    { words: ['run'], summary: 'run the operator', load: () => import('../operator/cli.js') },
    { words: ['invoke'], summary: 'send a message to an agent', load: () => import('../invoke/cli.js') },
    {
      words: ['crds'],
      summary: 'print the generated CustomResourceDefinitions',
      load: () => import('../api/crds-cli.js'),
    },
    {
      words: ['connection'],
      summary: 'check a connection from here (its key, reachability, the operator status)',
      load: () => import('../connection-check/cli.js'),
    },
    {
      words: ['version'],
      summary: 'print the version, the commit and the Node.js version (-o json)',
      load: () => import('./version-command.js'),
    },
  ],
  examples: {
    '': [
      'AGENT_OPERATOR_API_KEY=... agent-operator run --region eu --namespaces team-a',
      'agent-operator crds | kubectl apply -f -',
    ],
  },
};
