/**
 * The panel's views that opening a session never shows: one task's own view (its terminal, or an
 * agent's transcript), the Work tab and the Schedules tab. They are a chunk of their own, which
 * the page fetches after its first screen (load-panel-views.svelte.ts), not before it: V8 no longer parses
 * them while the page waits to show the session (issue 18: opening a big session).
 */
export { default as TaskView } from './TaskView.svelte';
export { default as WorkBoard } from '../work/WorkBoard.svelte';
export { default as SchedulesBoard } from '../schedules/SchedulesBoard.svelte';
