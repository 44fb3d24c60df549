// Which Node each use of Drover needs, said at once instead of failing deep inside a build:
// running it (the headless host, `npm start`, the tests) needs 20.19; building the desktop
// installers (`npm run dist`: electron-builder and Electron's rebuild tooling) needs 22.12.
// Written for any Node still in use (no newer syntax or APIs), since it runs on the old ones.
import { pathToFileURL } from 'node:url';

const NEEDS = {
  run: { version: [20, 19], what: 'Running Drover' },
  dist: { version: [22, 12], what: 'Building the desktop installers' },
};

/** What is wrong with this Node for the purpose, in words, or null when it will do. */
export function nodeProblem(purpose, current = process.versions.node) {
  const need = NEEDS[purpose];
  if (!need) throw new Error(`unknown purpose ${purpose}: one of ${Object.keys(NEEDS).join(', ')}`);
  const [major, minor] = current.split('.').map(Number);
  const [wantMajor, wantMinor] = need.version;
  if (major > wantMajor || (major === wantMajor && minor >= wantMinor)) return null;
  return (
    `${need.what} needs Node ${wantMajor}.${wantMinor} or newer; this is Node ${current}. ` +
    'Install a current Node (22 LTS or newer) from https://nodejs.org or your version manager (nvm install 22), then run the command again. ' +
    'The headless host and the tests run on Node 20.19 or newer; the desktop installers need 22.12.'
  );
}

export function requireNode(purpose) {
  const problem = nodeProblem(purpose);
  if (problem) {
    console.error(`drover: ${problem}`);
    process.exit(1);
  }
}

// `node scripts/require-node.mjs dist`
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) requireNode(process.argv[2] || 'dist');
