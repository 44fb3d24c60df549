import { z } from 'zod';

/**
 * The model's background tools: one schema each, giving the TypeScript type, the runtime
 * check and (through z.toJSONSchema) the JSON Schema the model is shown.
 */
const TaskId = z.string().min(1).describe('A task id as returned by run_command or list_tasks, like bg_12');

export const RunCommandInput = z
  .object({
    command: z.string().min(1).describe('The shell command line to run'),
    cwd: z.string().min(1).optional().describe('Working directory; defaults to the session folder'),
    background: z
      .boolean()
      .default(false)
      .describe('Start it detached and return a task id at once (builds, test suites, installs, servers)'),
    expected_seconds: z
      .number()
      .int()
      .positive()
      .max(86_400)
      .optional()
      .describe('Your honest estimate of how long it takes'),
    timeout_seconds: z
      .number()
      .int()
      .positive()
      .max(86_400)
      .optional()
      .describe(
        'Foreground: how long to wait before the run moves to the background, never killed (default 30 s). Background: the hard limit; omit to derive it from the estimate',
      ),
    notify_on_finish: z
      .boolean()
      .default(false)
      .describe('Background only: start a new turn when the task ends, so you can stop waiting now'),
  })
  .strict();

export const ListTasksInput = z
  .object({
    include_settled: z.boolean().default(true).describe('Include finished tasks (default true)'),
  })
  .strict();

export const READ_WAIT_DEFAULT_SECONDS = 60;
export const READ_WAIT_MAX_SECONDS = 300;

export const ReadTaskOutputInput = z
  .object({
    task_id: TaskId,
    wait: z.boolean().default(false).describe('Block until the task ends or the timeout passes'),
    // No schema maximum: a longer wait is clamped to READ_WAIT_MAX_SECONDS with a note, not refused.
    timeout_seconds: z
      .number()
      .int()
      .nonnegative()
      .default(READ_WAIT_DEFAULT_SECONDS)
      .describe(
        `How long to wait when wait is true (default ${READ_WAIT_DEFAULT_SECONDS}; a longer wait than ${READ_WAIT_MAX_SECONDS} is clamped to it)`,
      ),
    tail_lines: z.number().int().positive().max(100_000).optional().describe('Only the last N lines'),
  })
  .strict();

export const StopTaskInput = z.object({ task_id: TaskId }).strict();
export const ReapTasksInput = z.object({}).strict();

export type RunCommandArgs = z.output<typeof RunCommandInput>;
export type ReadTaskOutputArgs = z.output<typeof ReadTaskOutputInput>;
