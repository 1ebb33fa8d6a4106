// CI's drift check (`npm run check:generated`): fails when a committed generated file no
// longer matches what the source produces: the CRDs and their field references (from the
// zod schemas), and the README's decide ladder (from LADDER). Runs against the repository
// this script is in, wherever it is called from.
import { fileURLToPath } from 'node:url';
import { main } from '../src/api/crds-cli.js';
import { LADDER_DOC_PATH, ladderDocDrift } from '../src/reconcilers/agentdeployment/ladder-doc.js';

const repositoryRoot = fileURLToPath(new URL('..', import.meta.url));
const crds = await main(['--check', '--root', repositoryRoot]);
const ladder = await ladderDocDrift(repositoryRoot);
if (ladder !== undefined) {
  process.stderr.write(
    `${LADDER_DOC_PATH}: the decide ladder differs from LADDER (run npx tsx scripts/generate-ladder-doc.ts):\n${ladder}\n`,
  );
}
process.exitCode = crds !== 0 ? crds : ladder !== undefined ? 1 : 0;
