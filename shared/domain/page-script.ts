import { EARLY_SOCKET_SCRIPT } from '../ipc/early-socket.js';
import { PAGE_WARM_SCRIPT } from './intl-warm.js';

/**
 * The page's one inline script, first in index.html's head (put there by the build, allowed by
 * its hash, PAGE_SCRIPT_SOURCE in electron/host/static-files.ts, in both the page's policy and
 * the host's): it opens the host's connection with the page's first reads (EARLY_SOCKET_SCRIPT,
 * left at EARLY_SOCKET_KEY), then queues the locale's warming (PAGE_WARM_SCRIPT).
 */
export const PAGE_SCRIPT = EARLY_SOCKET_SCRIPT + PAGE_WARM_SCRIPT;
