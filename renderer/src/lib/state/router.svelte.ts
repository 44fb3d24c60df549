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

/** The part of `window` the router needs. */
export interface RouterHost {
  readonly location: { hash: string };
  readonly history: { replaceState(data: unknown, unused: string, url?: string): void };
  addEventListener(type: 'hashchange', listener: () => void): void;
  removeEventListener(type: 'hashchange', listener: () => void): void;
}

/** Hash routing: follows `hashchange`, and `navigate` writes the hash. */
export class RouterState {
  readonly #host: RouterHost;
  #route = $state.raw<Route>(HOME);

  constructor(host: RouterHost) {
    this.#host = host;
    this.#route = parseRoute(host.location.hash);
  }

  get route(): Route {
    return this.#route;
  }

  /** The selected session's id, or null at home. */
  get sessionId(): string | null {
    return this.#route.name === 'session' ? this.#route.sessionId : null;
  }

  start(): () => void {
    const onChange = () => {
      this.#route = parseRoute(this.#host.location.hash);
    };
    this.#host.addEventListener('hashchange', onChange);
    onChange();
    return () => this.#host.removeEventListener('hashchange', onChange);
  }

  /** Goes to a route; `replace` keeps the current one out of the back history. */
  navigate(route: Route, options: { replace?: boolean } = {}): void {
    const href = routeHref(route);
    this.#route = parseRoute(href);
    if (this.#host.location.hash === href) return;
    if (options.replace) this.#host.history.replaceState(null, '', href);
    else this.#host.location.hash = href;
  }
}
