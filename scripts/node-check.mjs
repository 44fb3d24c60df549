// Imported first by `npm start` and `npm run serve`, so an old Node is told what to install
// before anything else runs (imports are evaluated in order).
import { requireNode } from './require-node.mjs';

requireNode('run');
