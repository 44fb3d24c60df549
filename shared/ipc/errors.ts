// zod/mini, as the frame protocol that uses these (ws-protocol.ts). The page loads neither: it reads
// the host's frames without zod (ws-frame-reader.ts) and takes DroverError from drover-error.ts.
import * as z from 'zod/mini';
import { DroverError, ERROR_CODES } from './drover-error.js';

/** Every failure that crosses the contract carries one of these codes (listed in drover-error.ts). */
export const ErrorCodeSchema = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

export const IssueSchema = z.object({
  path: z.string(),
  message: z.string(),
});

export const IpcErrorSchema = z.object({
  code: ErrorCodeSchema,
  message: z.string(),
  /** The first offending field, dotted (`title`, `items.2.name`); absent when the whole input is wrong. */
  path: z.optional(z.string()),
  issues: z.optional(z.array(IssueSchema)),
});
export type IpcError = z.infer<typeof IpcErrorSchema>;

export type Result<T> = { ok: true; value: T } | { ok: false; error: IpcError };

export const ResultSchema = z.union([
  z.object({ ok: z.literal(true), value: z.unknown() }),
  z.object({ ok: z.literal(false), error: IpcErrorSchema }),
]);

// The class itself has no schema in it, so the page's first script can throw and pass it on
// before zod is loaded (drover-error.ts); every other module takes it from here.
export { DroverError, ERROR_CODES };

export function notFound(what: string, id: string): DroverError {
  return new DroverError('not_found', `No ${what} with id "${id}"`, { path: 'id' });
}

/** Dotted path of a zod issue: ['items', 2, 'name'] -> "items.2.name". */
export function issuePath(path: readonly PropertyKey[]): string {
  return path.map((part) => String(part)).join('.');
}

/**
 * Turns a zod failure into the contract's error (`what`: a request's input, or a WebSocket frame). Each issue names its field and what was
 * expected: an unknown key is named as the field itself, and a union (a provider or null)
 * reports the branch that got furthest, not a bare "Invalid input" on the union.
 */
export function invalidInput(what: 'input' | 'frame' | 'handshake calls', error: z.core.$ZodError): DroverError {
  const issues = error.issues.flatMap((issue) => describeIssue(issue, []));
  const first = issues[0];
  const where = first && first.path ? `${first.path}: ` : '';
  // Names the field, never the internal request it reached ("getTask"): REST callers never saw that name.
  const message = `Invalid ${what}: ${where}${first ? first.message : 'rejected'}`;
  const detail: { path?: string; issues: { path: string; message: string }[] } = { issues };
  if (first && first.path) detail.path = first.path;
  return new DroverError('invalid_input', message, detail);
}

type ZodIssue = z.core.$ZodIssue;

function describeIssue(issue: ZodIssue, prefix: readonly PropertyKey[]): { path: string; message: string }[] {
  const path = [...prefix, ...issue.path];
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      path: issuePath([...path, key]),
      message: 'is not a known field (unknown keys are refused, not ignored)',
    }));
  }
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const reach = (branch: readonly ZodIssue[]) =>
      Math.max(0, ...branch.map((inner) => inner.path.length + (inner.code === 'invalid_type' ? 0 : 1)));
    const best = issue.errors.reduce((a, b) => (reach(b) > reach(a) ? b : a));
    if (reach(best) > 0) return best.flatMap((inner) => describeIssue(inner, path));
    // Every branch refused the value's type: say every type that would do.
    const expected = [
      ...new Set(issue.errors.flat().flatMap((inner) => (inner.code === 'invalid_type' ? [inner.expected] : []))),
    ];
    const received = /received (\w+)/.exec(issue.errors.flat()[0]?.message ?? '')?.[1];
    if (expected.length > 0)
      return [
        {
          path: issuePath(path),
          message: `expected ${expected.join(' or ')}${received ? `, received ${received}` : ''}`,
        },
      ];
  }
  // zod's texts start "Invalid input: expected number, received string"; ours already say it is invalid.
  return [{ path: issuePath(path), message: issue.message.replace(/^Invalid input: /, '') }];
}
