import { FOREGROUND_ONLY_DESCRIPTION } from './run-command.js';
import type { AgentTool } from './tools.js';

/** The only process tool left when background work is off: run_command, foreground only. */
const FOREGROUND_TOOL = 'run_command';
/** Tools that start no process (planning, scheduling, sleep): they stay whatever the background setting. */
const PROCESSLESS_TOOLS = new Set([
  'task_create',
  'task_update',
  'task_list',
  'task_get',
  'todo_write',
  'cron_create',
  'cron_list',
  'cron_delete',
  'loop_next',
  'loop_stop',
  'sleep',
]);

/** run_command's arguments that only mean something in the background. */
const BACKGROUND_ARGS = {
  background: true,
  notify_on_finish: true,
  ready: true,
  notify_on_ready: true,
  work_item_id: true,
} as const;

/**
 * The tools the model is offered in this turn. With `background.enabled: false` in the settings
 * the spec (background-tasks.md, "Settings") removes the background option from run_command and
 * does not register the background tools at all: the model is offered run_command (and the planning tools, which touch no process) without
 * `background`, `notify_on_finish`, `ready` and `notify_on_ready`, and a call naming a background tool (or an alias) is unknown.
 * Scheduling and sleep start no process either, so they stay.
 */
export function offeredTools(tools: readonly AgentTool[], backgroundEnabled: boolean): readonly AgentTool[] {
  if (backgroundEnabled) return tools;
  return tools
    .filter((tool) => tool.name === FOREGROUND_TOOL || PROCESSLESS_TOOLS.has(tool.name))
    .map((tool) =>
      tool.name === FOREGROUND_TOOL
        ? {
            ...tool,
            description: FOREGROUND_ONLY_DESCRIPTION,
            input: tool.input.omit(BACKGROUND_ARGS),
            execute: tool.execute.bind(tool),
          }
        : tool,
    );
}
