/** Reads the locale's data in on another thread (shared/domain/intl-warm.ts), then ends. */
import { warmIntl } from '@shared/domain/intl-warm.js';

warmIntl();
postMessage('done');
close();
