import { BRIDGE_KEY } from '@shared/ipc/bridge.js';
import { hostToken } from '../../lib/api.js';

/** In the desktop app the log is on this machine's disk; in a browser the host may be another machine. */
export function inDesktopApp(): boolean {
  return (window as unknown as Record<string, unknown>)[BRIDGE_KEY] !== undefined;
}

/**
 * Saves a task's whole log from the headless host. A log can run to gigabytes, so the page must
 * never hold it: only a download the browser runs itself (following a link) goes straight to
 * disk. Such a link cannot carry the Authorization header, and the token must never go in a URL
 * (it would stay in the download history), so the page first trades its token, in the header, for
 * a single-use ticket URL that unlocks this one log for a minute, then follows that.
 */
export async function downloadTaskLog(sessionId: string, taskId: string): Promise<void> {
  const token = hostToken();
  const path = `/api/sessions/${encodeURIComponent(sessionId)}/background-tasks/${encodeURIComponent(taskId)}/log-ticket`;
  const response = await fetch(path, { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
  const body = (await response.json().catch(() => null)) as { url?: unknown; error?: { message?: string } } | null;
  if (!response.ok || typeof body?.url !== 'string') {
    throw new Error(body?.error?.message ?? `The host answered ${response.status}`);
  }
  const link = document.createElement('a');
  link.href = body.url;
  link.download = `${taskId}.log`;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
}
