import { z } from 'zod';
import { request } from './ipc/define.js';
import { IdSchema } from './schemas/session.js';
import {
  CheckAfterSecondsSchema,
  CommandSchema,
  EventsMaxBytesSchema,
  MonitorNotifySchema,
  PortSchema,
  ReadyCheckSchema,
  TailLinesSchema,
  TaskIdSchema,
  TaskListSchema,
  TaskOutputSchema,
  TaskRowSchema,
  TaskWithOutputSchema,
} from './schemas/task.js';
import { AgentDefinitionProblemSchema, AgentDefinitionSchema, AgentRunSchema } from './schemas/subagent.js';
import {
  FINISHED_PAGE_DEFAULT,
  FinishedCountsSchema,
  FinishedCursorSchema,
  FinishedFilterSchema,
  FinishedLimitSchema,
  FinishedPageSchema,
  FIND_TASKS_MAX,
} from './schemas/task-page.js';

/** The contract's requests about tasks: starting, reading, stopping and watching them. */

/** One task as a client reads it: its row, its output, and for an agent task its run (null for others). */
const TaskDetailSchema = TaskWithOutputSchema.extend({ agent: AgentRunSchema.nullable() });

const Empty = z.object({}).strict();
const BySession = z.object({ sessionId: IdSchema }).strict();
const ByTask = z.object({ sessionId: IdSchema, taskId: TaskIdSchema }).strict();
const Seconds = z
  .number()
  .int()
  .positive()
  .max(24 * 3600);

/** What the operator's shell line answers: the task, and for a foreground run its output or handover notice. */
export const ShellResultSchema = z.object({
  task: TaskRowSchema,
  output: TaskOutputSchema.nullable(),
  /** Set when a foreground run was handed to the background, or could not be. */
  notice: z.string().nullable(),
});
export type ShellResult = z.infer<typeof ShellResultSchema>;

export const taskRequests = {
  startTask: request({
    input: z
      .object({
        sessionId: IdSchema,
        command: CommandSchema,
        cwd: z.string().min(1).optional(),
        /** command (default) or monitor: a monitor wakes the agent on a schedule (notify) instead of being polled. */
        kind: z.enum(['command', 'monitor']).optional(),
        expectedSeconds: Seconds.optional(),
        timeoutSeconds: Seconds.optional(),
        notifyOnFinish: z.boolean().optional(),
        notify: MonitorNotifySchema.optional(),
        checkAfterSeconds: CheckAfterSecondsSchema.optional(),
        ready: ReadyCheckSchema.optional(),
        notifyOnReady: z.boolean().optional(),
      })
      .strict()
      .superRefine((input, context) => {
        const monitorOnly = (['notify', 'checkAfterSeconds'] as const).filter((key) => input[key] !== undefined);
        for (const key of monitorOnly)
          if (input.kind !== 'monitor')
            context.addIssue({ code: 'custom', path: [key], message: 'is only for "kind": "monitor"' });
        if (input.kind === 'monitor' && input.notifyOnFinish !== undefined)
          context.addIssue({
            code: 'custom',
            path: ['notifyOnFinish'],
            message: 'is not for a monitor: its notify says when it wakes the agent',
          });
        if (input.notifyOnReady !== undefined && input.ready === undefined)
          context.addIssue({
            code: 'custom',
            path: ['notifyOnReady'],
            message: 'needs ready (what counts as ready)',
          });
      }),
    output: TaskRowSchema,
    summary: 'Start a background task or monitor (queued when the pool is at its cap)',
  }),
  readTaskEvents: request({
    input: ByTask.extend({
      /** Where to read from (default 0); the model's own stored offset is never moved by this. */
      fromOffset: z.number().int().nonnegative().optional(),
      maxBytes: EventsMaxBytesSchema.optional(),
    }).strict(),
    output: z.object({
      text: z.string(),
      fromOffset: z.number().int().nonnegative(),
      nextOffset: z.number().int().nonnegative(),
      logSize: z.number().int().nonnegative(),
      more: z.boolean(),
    }),
    summary:
      "A delta read of a task's log from a byte offset: whole characters and escape sequences only, rendered as a person reads it",
  }),
  listPorts: request({
    input: Empty,
    output: z.object({
      /** False where this OS does not tell Drover which process listens where (then the list is empty). */
      supported: z.boolean(),
      ports: z.array(
        z.object({
          port: PortSchema,
          pid: z.number().int().positive(),
          taskId: TaskIdSchema,
          sessionId: IdSchema,
          command: z.string(),
        }),
      ),
    }),
    summary: 'Every TCP port a running Drover task listens on',
  }),
  killProcess: request({
    input: z
      .object({
        sessionId: IdSchema,
        taskId: z.string().optional(),
        pid: z.number().optional(),
        port: z.number().optional(),
      })
      .strict(),
    output: z.object({
      /** The task stopped as a whole, or null for a process that was not Drover's (ended alone). */
      taskId: TaskIdSchema.nullable(),
      pid: z.number().int().nullable(),
      port: z.number().int().nullable(),
      command: z.string().nullable(),
      signal: z.enum(['SIGTERM', 'SIGKILL']).nullable(),
      alreadySettled: z.boolean(),
      message: z.string(),
    }),
    summary:
      'kill_shell: stop by exactly one of taskId, pid or port; a task of the session as a whole, any other process alone',
  }),
  listTasks: request({
    input: BySession,
    output: TaskListSchema,
    summary: 'Every task of a session, oldest first, with the running count',
  }),
  openTasks: request({
    input: BySession.extend({
      filter: FinishedFilterSchema.default('all'),
      limit: FinishedLimitSchema.default(FINISHED_PAGE_DEFAULT),
    }).strict(),
    output: z.object({
      /** Queued and running tasks, and leftovers of an earlier run, whole (oldest first). */
      live: z.array(TaskRowSchema),
      /** How many finished tasks each filter shows. */
      counts: FinishedCountsSchema,
      /** The first page of finished rows under `filter`, newest first. */
      finished: FinishedPageSchema,
      /** The highest task number of the session (0 for none): a later task is new to this answer. */
      newest: z.number().int().nonnegative(),
    }),
    summary:
      'What the tasks panel shows first: the live tasks, the Finished counts and the first page of finished rows (the rest load with pageFinishedTasks)',
  }),
  pageFinishedTasks: request({
    input: BySession.extend({
      filter: FinishedFilterSchema.default('all'),
      /** The `next` of the page before; the first page when absent. */
      after: FinishedCursorSchema.optional(),
      limit: FinishedLimitSchema.default(FINISHED_PAGE_DEFAULT),
    }).strict(),
    output: FinishedPageSchema,
    summary: 'The next page of finished rows, newest first, after a cursor (stable while tasks start and settle)',
  }),
  findTasks: request({
    input: BySession.extend({
      taskIds: z.array(TaskIdSchema).min(1).max(FIND_TASKS_MAX),
    }).strict(),
    output: z.object({ tasks: z.array(TaskRowSchema), missing: z.array(TaskIdSchema) }),
    summary:
      'Rows of tasks by id (for a link to a task no page has loaded yet); ids the session does not know are missing',
  }),
  finishedTaskIds: request({
    input: BySession.extend({ filter: FinishedFilterSchema.default('all') }).strict(),
    output: z.object({
      ids: z.array(TaskIdSchema),
      /** How many of them ran in the background (what clearing them takes from that count). */
      background: z.number().int().nonnegative(),
    }),
    summary: 'The ids of every finished task under a filter (what Clear takes: the list as the person saw it)',
  }),
  workListTasks: request({
    input: BySession.extend({ listId: z.string().min(1).max(200) }).strict(),
    output: z.object({ tasks: z.array(TaskRowSchema) }),
    summary:
      "The session's tasks started for items of a work list, finished ones too (the Work tab shows them on their items)",
  }),
  getTask: request({
    input: ByTask.extend({ tail: TailLinesSchema.optional() }).strict(),
    output: TaskDetailSchema,
    summary: 'One task with its output (the last `tail` lines when given); an agent task with its run',
  }),
  listAgentDefinitions: request({
    input: Empty,
    output: z.object({ agents: z.array(AgentDefinitionSchema), problems: z.array(AgentDefinitionProblemSchema) }),
    summary:
      'The sub-agent definitions in force (built in, the project’s, the user’s) and the files that could not be used',
  }),
  getAgentRun: request({
    input: ByTask,
    output: AgentRunSchema,
    summary: "An agent task's run: its status, result and transcript so far (a conflict for other tasks)",
  }),
  stopTask: request({
    input: ByTask,
    output: TaskDetailSchema.extend({ alreadySettled: z.boolean() }),
    summary: 'Stop a task and its whole process group; a settled task is returned as it is',
  }),
  backgroundTask: request({
    input: ByTask,
    output: z.object({ task: TaskRowSchema }),
    summary:
      'Hand a running foreground command (a ! line, a foreground tool call) to the background now, as the wait would at its end',
  }),
  readTaskLog: request({
    input: ByTask.extend({ fromByte: z.number().int().nonnegative().optional() }).strict(),
    output: z.object({
      /** Raw terminal output (escape sequences intact) for a terminal view to render. */
      data: z.string(),
      fromByte: z.number().int().nonnegative(),
      toByte: z.number().int().nonnegative(),
      /** True when older bytes exist before fromByte that were not sent. */
      truncated: z.boolean(),
    }),
    summary: 'Raw log bytes from an offset (default: the last 256 KiB), to follow a task in a terminal view',
  }),
  writeTask: request({
    input: ByTask.extend({
      data: z
        .string()
        .min(1)
        .max(64 * 1024),
    }).strict(),
    output: z.object({ written: z.number().int() }),
    summary: "Type into a running task's terminal (to answer a prompt)",
  }),
  searchTaskLog: request({
    input: ByTask.extend({
      query: z.string().min(1).max(500),
      maxMatches: z.number().int().positive().max(5_000).default(500),
    }).strict(),
    output: z.object({
      matches: z.array(z.object({ line: z.number().int().positive(), text: z.string() })),
      truncated: z.boolean(),
      linesSearched: z.number().int().nonnegative(),
    }),
    summary: "Search a task's whole log on disk (case-insensitive, escape sequences ignored)",
  }),
  reapTasks: request({
    input: BySession,
    output: z.object({
      reaped: z.array(z.object({ taskId: TaskIdSchema, pids: z.array(z.number().int()) })),
      untouched: z.array(z.object({ taskId: TaskIdSchema, reason: z.string() })),
    }),
    summary: 'End every process of this session still running from an earlier run (only provably ours)',
  }),
  clearFinishedTasks: request({
    input: BySession.extend({
      /** Only these (the ones the person saw when they chose Clear); every settled task when absent. */
      taskIds: z.array(TaskIdSchema).max(100_000).optional(),
    }).strict(),
    output: z.object({
      removed: z.array(TaskIdSchema),
      /** Settled tasks kept because the transcript could not record them first (their rows would lose what they showed); only when there are any. */
      kept: z.array(z.object({ taskId: TaskIdSchema, reason: z.string() })).optional(),
    }),
    summary:
      'Drop the settled tasks of a session and their logs; running ones, and any the transcript could not record first, are untouched',
  }),
  scanTaskLog: request({
    input: ByTask.extend({
      query: z.string().min(1).max(500),
      maxMatches: z.number().int().positive().max(5_000).default(500),
      /** A line's first byte (an earlier scan's resumeByte), to follow a growing log; 0 by default. */
      fromByte: z.number().int().nonnegative().optional(),
      /** The number of the line at fromByte (an earlier scan's resumeLine). */
      firstLine: z.number().int().positive().optional(),
    }).strict(),
    output: z.object({
      matches: z.array(
        z.object({
          line: z.number().int().positive(),
          byte: z.number().int().nonnegative(),
          count: z.number().int().positive(),
          text: z.string(),
        }),
      ),
      truncated: z.boolean(),
      /** Occurrences from fromByte to the end, the unfinished last line included. */
      total: z.number().int().nonnegative(),
      /** Occurrences in the lines that ended before resumeByte. */
      settledTotal: z.number().int().nonnegative(),
      resumeByte: z.number().int().nonnegative(),
      resumeLine: z.number().int().positive(),
      linesSearched: z.number().int().nonnegative(),
    }),
    summary: "Count and locate every occurrence in a task's whole log (for a terminal view's search), resumable",
  }),
  rerunTask: request({
    input: ByTask,
    output: ShellResultSchema,
    summary: "Run a task's command again as the person's shell line: same command, folder and background flag",
  }),
  revealTaskLog: request({
    input: ByTask,
    output: z.object({
      /** The desktop app showed the log in the file manager; false where it cannot (the headless host). */
      revealed: z.boolean(),
      path: z.string(),
    }),
    summary: "Show a task's log file in the file manager (desktop app); always answers its path",
  }),
  saveTaskLog: request({
    input: ByTask,
    output: z.object({
      /** Where the copy was written; null when the person cancelled the save dialog. */
      savedTo: z.string().nullable(),
    }),
    summary:
      "Save a copy of a task's whole log where the person picks (desktop app; a browser downloads GET …/log instead)",
  }),
};
