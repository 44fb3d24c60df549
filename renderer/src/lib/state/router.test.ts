import { describe, expect, it } from 'vitest';
import { HOME, parseRoute, routeHref, type Route } from './router.svelte.js';

describe('the route in the address', () => {
  it('reads and writes the panel’s views: tasks, one task, work', () => {
    const routes: Route[] = [
      { name: 'session', sessionId: 'abc' },
      { name: 'session', sessionId: 'abc', panel: 'tasks' },
      { name: 'session', sessionId: 'abc', panel: 'tasks', taskId: 'bg_1' },
      { name: 'session', sessionId: 'abc', panel: 'work' },
    ];
    for (const route of routes) expect(parseRoute(routeHref(route))).toEqual(route);
    expect(routeHref({ name: 'session', sessionId: 'abc', panel: 'work' })).toBe('#/s/abc/work');
  });

  it('takes no task under the Work view, and no other view', () => {
    expect(parseRoute('#/s/abc/work/bg_1')).toEqual(HOME);
    expect(parseRoute('#/s/abc/plans')).toEqual(HOME);
    // A task id given with the Work view is not written (the view has none).
    expect(routeHref({ name: 'session', sessionId: 'abc', panel: 'work', taskId: 'bg_1' })).toBe('#/s/abc/work');
  });
});
