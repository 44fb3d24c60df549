import { BRIDGE_KEY } from '@shared/ipc/bridge.js';
import { hostToken } from '../../lib/api.js';

/** In the desktop app the log is on this machine's disk; in a browser the host may be another machine. */
export function inDesktopApp(): boolean {
  return (window as unknown as Record<string, unknown>)[BRIDGE_KEY] !== undefined;
}

/**
 * Downloads a task's whole log from the headless host's REST route. The token goes in the
 * Authorization header as on every other route (never in the URL, where it would stay in the
 * download history); the answer becomes a Blob the browser saves under the task's name.
 */
export async function downloadTaskLog(sessionId: string, taskId: string): Promise<void> {
  const token = hostToken();
  const path = `/api/sessions/${encodeURIComponent(sessionId)}/background-tasks/${encodeURIComponent(taskId)}/log`;
  const response = await fetch(path, { headers: { Authorization: `Bearer ${token}` } });
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new Error(body?.error?.message ?? `The host answered ${response.status}`);
  }
  const blob = await response.blob();
  const url = URL.createObjectURL(blob);
  try {
    const link = document.createElement('a');
    link.href = url;
    link.download = `${taskId}.log`;
    link.rel = 'noopener';
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    // The click has handed the Blob to the download; the URL is not needed past this turn.
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }
}
