// `npm run serve -- [--port N] [--data-dir DIR] [--token T]`: the headless host.
import './node-check.mjs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuilt, root } from './build-if-stale.mjs';

ensureBuilt();
await import(pathToFileURL(join(root, 'out', 'main', 'host.js')).href);
