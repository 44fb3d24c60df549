/** Reads the locale's data in on another thread (see intl-warm.ts), then ends. */
import { warmIntl } from './intl-warm.js';

warmIntl();
postMessage('done');
close();
