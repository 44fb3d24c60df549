// `npm start`: build what is stale, then open the desktop app; where Electron cannot start,
// say why in one line and serve the same UI from the headless host instead.
import './node-check.mjs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuilt, root } from './build-if-stale.mjs';
import { electronAvailability, electronSqliteBinding } from './electron-env.mjs';

ensureBuilt();

async function serveHeadless(reason) {
  console.log(`drover: Electron cannot start: ${reason}; serving the headless host instead (open the address below).`);
  await import(pathToFileURL(join(root, 'out', 'main', 'host.js')).href);
}

const electron = electronAvailability(root);
if (!electron.ok) {
  await serveHeadless(electron.reason);
} else {
  let binding;
  try {
    binding = electronSqliteBinding(root);
  } catch (error) {
    await serveHeadless(error.message);
  }
  if (binding) {
    const child = spawn(electron.binary, [root, ...process.argv.slice(2)], {
      stdio: 'inherit',
      env: { ...process.env, DROVER_SQLITE_BINDING: binding },
    });
    child.once('error', (error) => void serveHeadless(`launching ${electron.binary} failed (${error.message})`));
    child.once('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
    // Passed on, and this wrapper waits for the app's own exit: it stops its tasks before it ends.
    // (Windows has no SIGHUP to send: there, closing the console reaches the app itself.)
    const relayed = process.platform === 'win32' ? ['SIGINT', 'SIGTERM'] : ['SIGINT', 'SIGTERM', 'SIGHUP'];
    for (const signal of relayed) process.on(signal, () => child.kill(signal));
  }
}
