import { HOME, parseRoute, routeHref, type Route } from '../route.js';

// The routes themselves are plain code of their own (route.ts): the page's first script reads the
// one it opens on before the app (and Svelte) is loaded.
export * from '../route.js';

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
