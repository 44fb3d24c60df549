import { DroverError } from './errors.js';
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
  for (const name of Object.keys(contract.requests)) {
    api[name] = async (input?: unknown) => {
      const result = await transport.call(name, input ?? {});
      if (!result.ok) throw DroverError.from(result.error);
      return result.value;
    };
  }
  api.on = (event: string, listener: (payload: unknown) => void) => {
    if (!(event in contract.events)) throw new DroverError('unknown_request', `Unknown event "${event}"`);
    return transport.subscribe((name, payload) => {
      if (name === event) listener(payload);
    });
  };
  return api as Api<C>;
}
