import type { Contract, OutputOf, ParsedInputOf, RequestName } from '../../shared/ipc/define.js';
import { DroverError, invalidInput, type Result } from '../../shared/ipc/errors.js';

export type Handlers<C extends Contract> = {
  [N in RequestName<C>]: (input: ParsedInputOf<C, N>) => OutputOf<C, N> | Promise<OutputOf<C, N>>;
};

export interface Router {
  /** Never throws: every outcome, including a bug in a handler, is a Result. */
  handle(name: string, input: unknown): Promise<Result<unknown>>;
}

export interface RouterOptions {
  /** Where unexpected handler failures are reported (their details never reach the caller). */
  onInternalError?: (name: string, error: unknown) => void;
  /**
   * Check every answer against the contract (on by default: tests and development). The
   * shipped app turns it off: answers are our own data, and a 10,000-row list would pay for it.
   */
  checkOutputs?: boolean;
  /**
   * Turns a failure the handler did not expect but the person can act on (a full disk, a
   * damaged or read-only database) into a clear error. Consulted before the generic internal
   * answer; the failure is still reported to the log, since it means something went wrong.
   */
  mapError?: (error: unknown) => DroverError | null;
}

/** One handler per request; input validated at the boundary, output checked against the contract. */
export function createRouter<C extends Contract>(
  contract: C,
  handlers: Handlers<C>,
  options: RouterOptions = {},
): Router {
  const report =
    options.onInternalError ??
    ((name, error) => console.error(`[drover] ${name} failed:`, error instanceof KnownFailure ? error.message : error));
  const checkOutputs = options.checkOutputs ?? true;
  return {
    async handle(name, input) {
      if (typeof name !== 'string' || !Object.hasOwn(contract.requests, name)) {
        return fail(new DroverError('unknown_request', `Unknown request "${String(name)}"`));
      }
      const def = contract.requests[name]!;
      const parsed = def.input.safeParse(input === undefined ? {} : input);
      if (!parsed.success) return fail(invalidInput('input', parsed.error));
      try {
        const handler = handlers[name as RequestName<C>] as (input: unknown) => unknown;
        const value = await handler(parsed.data);
        return { ok: true, value: checkOutputs ? def.output.parse(value) : value };
      } catch (error) {
        if (error instanceof DroverError) return fail(error);
        const mapped = mapSafely(options.mapError, error);
        // A known condition (a full disk: every write fails alike) is reported as what it means, not as a stack per request.
        report(name, mapped ? new KnownFailure(mapped.message, error) : error);
        if (mapped) return fail(mapped);
        return fail(new DroverError('internal', `${name} failed inside Drover; the details are in the log`));
      }
    },
  };
}

/** A failure the mapper recognised: its message says what happened, its cause is the original error. */
export class KnownFailure extends Error {
  readonly code: unknown;

  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = 'KnownFailure';
    this.code = (cause as { code?: unknown } | null)?.code;
  }
}

/** A mapper that throws must not turn one failure into a crash of the router. */
function mapSafely(mapError: RouterOptions['mapError'], error: unknown): DroverError | null {
  if (!mapError) return null;
  try {
    return mapError(error);
  } catch {
    return null;
  }
}

function fail(error: DroverError): Result<never> {
  return { ok: false, error: error.toJSON() };
}
