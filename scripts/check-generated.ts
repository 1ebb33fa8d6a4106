// CI's drift check (`npm run check:generated`): fails when a committed generated file no
// longer matches what the source produces. Runs against the repository this script is in,
// wherever it is called from.
import { fileURLToPath } from 'node:url';
import { main } from '../src/api/crds-cli.js';

const repositoryRoot = fileURLToPath(new URL('..', import.meta.url));
process.exitCode = await main(['--check', '--root', repositoryRoot]);
