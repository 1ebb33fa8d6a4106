// Rewrites the README's copy of decide's ladder from LADDER (src/reconcilers/agentdeployment/
// decide.ts). scripts/check-generated.ts fails when the committed copy differs.
import { fileURLToPath } from 'node:url';
import { LADDER_DOC_PATH, writeLadderDoc } from '../src/reconcilers/agentdeployment/ladder-doc.js';

const repositoryRoot = fileURLToPath(new URL('..', import.meta.url));
const changed = await writeLadderDoc(repositoryRoot);
process.stdout.write(
  changed ? `wrote ${LADDER_DOC_PATH}\n` : `${LADDER_DOC_PATH}: the decide ladder is up to date\n`,
);
