import type { FakeModelServer, RecordedRequest, ScriptedReply } from './types.js';

/** Whose request it is: the session's model (`parent`), or a sub-agent by the marker its task starts with. */
export function requesterOf(request: RecordedRequest): string {
  if (!/You are a sub-agent/.test(request.transcript)) return 'parent';
  return /^user: (TASK-\w+)/m.exec(request.transcript)?.[1] ?? 'unknown';
}

/**
 * Scripts a conversation with sub-agents. The parent and its agents share one server and reach it
 * in any order, so each request is answered from its requester's own list, in order: the session's
 * model (`parent`), or an agent whose prompt starts with `TASK-X: …` (`TASK-X`).
 */
export function enqueueRouted(model: Pick<FakeModelServer, 'enqueue'>, routes: Record<string, ScriptedReply[]>): void {
  const next = new Map<string, number>();
  const reply = (request: RecordedRequest): ScriptedReply => {
    const key = requesterOf(request);
    const index = next.get(key) ?? 0;
    next.set(key, index + 1);
    const scripted = routes[key]?.[index];
    if (!scripted) throw new Error(`no reply ${index} scripted for ${key}`);
    return scripted;
  };
  const count = Object.values(routes).reduce((sum, replies) => sum + replies.length, 0);
  model.enqueue(...Array.from({ length: count }, () => reply));
}

/** The session model's requests, in order (its agents' are interleaved with them in `requests`). */
export function parentRequests(requests: readonly RecordedRequest[]): RecordedRequest[] {
  return requests.filter((request) => requesterOf(request) === 'parent');
}
