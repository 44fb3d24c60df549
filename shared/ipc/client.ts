import { DroverError } from './drover-error.js';
import type { Contract, EventName, InputOf, OutputOf, PayloadOf, RequestName } from './define.js';
import type { ClientTransport } from './transport.js';

// A request whose input has no required field may be called with no argument.
type Args<In> = Record<never, never> extends In ? [input?: In] : [input: In];

export type Api<C extends Contract> = {
  readonly [N in RequestName<C>]: (...args: Args<InputOf<C, N>>) => Promise<OutputOf<C, N>>;
} & {
  on<E extends EventName<C>>(event: E, listener: (payload: PayloadOf<C, E>) => void): () => void;
};

/**
 * The typed api object the renderer uses, derived from the contract. It exposes
 * exactly the contract's names; failures arrive as DroverError with the server's code.
 */
export function createApi<C extends Contract>(contract: C, transport: ClientTransport): Api<C> {
  const api: Record<string, unknown> = {};
  for (const name of Object.keys(contract.requests)) api[name] = caller(transport, name);
  api.on = (event: string, listener: (payload: unknown) => void) => {
    if (!(event in contract.events)) throw new DroverError('unknown_request', `Unknown event "${event}"`);
    return subscribe(transport, event, listener);
  };
  return api as Api<C>;
}

/** A request sent as named; a failure arrives as DroverError with the server's code. */
function caller(transport: ClientTransport, name: string): (input?: unknown) => Promise<unknown> {
  return async (input?: unknown) => {
    const result = await transport.call(name, input ?? {});
    if (!result.ok) throw DroverError.from(result.error);
    return result.value;
  };
}

function subscribe(transport: ClientTransport, event: string, listener: (payload: unknown) => void): () => void {
  return transport.subscribe((name, payload) => {
    if (name === event) listener(payload);
  });
}

/** Property names that generic code reads off any object (await, JSON, inspection): never taken as requests. */
const NOT_REQUESTS = new Set(['then', 'catch', 'finally', 'toJSON', 'toString', 'valueOf', 'constructor']);

/**
 * The same api built without the contract's value: each name read off it is a request sent as
 * named (the server checks it and answers `unknown_request` for a name it does not know, and the
 * type allows only the contract's names), and events are subscribed as named. The page uses this
 * so that its first requests go out before its bundle has built the contract's schemas (issue 18:
 * opening a big session); the contract still gives every type.
 */
export function createCallApi<C extends Contract>(transport: ClientTransport): Api<C> {
  const calls = new Map<string, (input?: unknown) => Promise<unknown>>();
  const on = (event: string, listener: (payload: unknown) => void) => subscribe(transport, event, listener);
  // A target with no prototype: Svelte's $state and other deep proxies leave such an object as it is.
  return new Proxy(Object.create(null) as Api<C>, {
    get(_target, name) {
      if (name === 'on') return on;
      if (typeof name !== 'string' || NOT_REQUESTS.has(name)) return undefined;
      let call = calls.get(name);
      if (!call) calls.set(name, (call = caller(transport, name)));
      return call;
    },
  });
}
