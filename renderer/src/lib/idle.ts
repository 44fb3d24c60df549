/** What the page offers for running work when it is idle (requestIdleCallback is missing in some browsers). */
export interface IdleScope {
  requestIdleCallback?: (callback: () => void, options?: { timeout: number }) => number;
  setTimeout: (callback: () => void, ms: number) => unknown;
}

/**
 * Runs `task` at the page's next idle moment, and by `timeoutMs` from now at the latest; where
 * the browser has no idle callbacks, once the current task is done.
 */
export function whenIdle(task: () => void, timeoutMs: number, scope: IdleScope = globalThis): void {
  if (scope.requestIdleCallback) scope.requestIdleCallback(task, { timeout: timeoutMs });
  else scope.setTimeout(task, 0);
}

/**
 * Runs `task` at the page's first idle moment once `after` has settled (either way), and by
 * `timeoutMs` after it at the latest: work the first screen must not wait for.
 */
export function whenIdleAfter(
  after: Promise<unknown>,
  task: () => void,
  timeoutMs: number,
  scope: IdleScope = globalThis,
): void {
  void after.catch(() => undefined).then(() => whenIdle(task, timeoutMs, scope));
}
