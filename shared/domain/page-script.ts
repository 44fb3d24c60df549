import { EARLY_SOCKET_SCRIPT } from '../ipc/early-socket.js';

/**
 * The page's one inline script, first in index.html's head (put there by the build, allowed by
 * its hash, PAGE_SCRIPT_SOURCE in electron/host/static-files.ts, in both the page's policy and
 * the host's): it opens the host's connection with the page's first reads (EARLY_SOCKET_SCRIPT,
 * left at EARLY_SOCKET_KEY).
 */
export const PAGE_SCRIPT = EARLY_SOCKET_SCRIPT;
