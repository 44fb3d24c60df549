import { whenIdleAfter, type IdleScope } from '../../lib/idle.js';

/** What panel-views.ts exports: the task view and the Work and Schedules tabs. */
export type PanelViews = typeof import('./panel-views.js');

let loading: Promise<PanelViews> | null = null;
/** The views once they are in: the panel then shows them at once, in the same update as the place that asks for them. */
let loaded = $state.raw<PanelViews | null>(null);

/** The panel's other views if they are in, else null (read while rendering, it renders again once they are). */
export function panelViews(): PanelViews | null {
  return loaded;
}

/**
 * The panel's other views, fetched once and shared by every panel. A fetch that failed (the host
 * went away mid-load) is forgotten, so the next time a view is shown it is asked for again.
 */
export function loadPanelViews(): Promise<PanelViews> {
  loading ??= import('./panel-views.js').then(
    (views) => (loaded = views),
    (error: unknown) => {
      loading = null;
      throw error;
    },
  );
  return loading;
}

/** Whether the panel at this place shows one of these views: a task, or a tab other than Tasks. */
export function needsPanelViews(place: {
  open: boolean;
  view: string | undefined;
  taskId: string | undefined;
}): boolean {
  return place.open && (place.taskId !== undefined || (place.view !== undefined && place.view !== 'tasks'));
}

/** How long after the first screen the page waits for an idle moment before it fetches the views anyway. */
const IDLE_TIMEOUT_MS = 2_000;

/**
 * Fetches the panel's other views ahead of need, at the first idle moment once `firstScreen` has
 * settled, so the first click on a task or a tab does not wait for them.
 */
export function preloadPanelViews(firstScreen: Promise<unknown>, scope?: IdleScope): void {
  whenIdleAfter(firstScreen, () => void loadPanelViews().catch(() => undefined), IDLE_TIMEOUT_MS, scope);
}
