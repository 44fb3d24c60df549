/*
 * The app's routes and their hashes. Plain code, no runes: boot.ts reads the route the page opens
 * on before Svelte's runtime is loaded (issue 18); the router (state/router.svelte.ts) re-exports it.
 */

/** Where the app is; lives in the location hash so a reload restores it. */
export type Route =
  { name: 'home' } | { name: 'settings' } | { name: 'session'; sessionId: string; panel?: PanelView; taskId?: string };

/** The views of the right-hand panel: background tasks, the session's work items (#15), its schedules (#16). */
export type PanelView = 'tasks' | 'work' | 'schedules';

export const HOME: Route = { name: 'home' };
export const SETTINGS: Route = { name: 'settings' };

/** `#/settings`, `#/s/<id>`, `#/s/<id>/tasks`, `#/s/<id>/tasks/<taskId>`, `#/s/<id>/work`, `#/s/<id>/schedules`; anything else is home. */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '').replace(/^\/+/, '').replace(/\/+$/, '');
  const parts = path === '' ? [] : path.split('/').map(decode);
  if (parts.some((part) => part === null || part === '')) return HOME;
  if (parts.length === 1 && parts[0] === 'settings') return SETTINGS;
  const [head, sessionId, panel, taskId, ...rest] = parts as string[];
  if (head !== 's' || sessionId === undefined || rest.length > 0) return HOME;
  if (panel === undefined) return { name: 'session', sessionId };
  if (panel === 'work' || panel === 'schedules')
    return taskId === undefined ? { name: 'session', sessionId, panel } : HOME;
  if (panel !== 'tasks') return HOME;
  if (taskId === undefined) return { name: 'session', sessionId, panel };
  return { name: 'session', sessionId, panel, taskId };
}

/** The hash for a route, e.g. `#/s/abc/tasks`. */
export function routeHref(route: Route): string {
  if (route.name === 'home') return '#/';
  if (route.name === 'settings') return '#/settings';
  let href = `#/s/${encodeURIComponent(route.sessionId)}`;
  if (route.panel) {
    href += `/${route.panel}`;
    if (route.panel === 'tasks' && route.taskId !== undefined) href += `/${encodeURIComponent(route.taskId)}`;
  }
  return href;
}

export function sessionRoute(sessionId: string): Route {
  return { name: 'session', sessionId };
}

function decode(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}
