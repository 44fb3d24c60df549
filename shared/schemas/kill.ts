import { z } from 'zod';

/**
 * kill_shell's input: exactly one target, a tracked task's id, a process id or a TCP port.
 * Every refusal names the three fields and the value that was wrong, so the model can fix
 * its call in one go.
 */
export const KILL_TARGETS = 'task_id, pid or port';

/** kill(2) takes a 32-bit pid_t: a larger number would wrap to a negative one, which means a whole group. */
export const PID_MAX = 2 ** 31 - 1;
export const PORT_MAX = 65_535;

function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (value === undefined) return 'nothing';
  return JSON.stringify(value) ?? typeof value;
}

const again = `Give exactly one of ${KILL_TARGETS}.`;

function pidProblem(value: unknown): string {
  if (value === 0 || value === -1)
    return `pid ${value} is refused: to kill(2) it means every process it can reach, not one process. ${again}`;
  if (value === 1) return `pid 1 is refused: it is the system's init process. ${again}`;
  return `pid must be a whole number from 2 to ${PID_MAX}, not ${shown(value)}. ${again}`;
}

function portProblem(value: unknown): string {
  return `port must be a whole number from 1 to ${PORT_MAX}, not ${shown(value)}. ${again}`;
}

const Pid = z
  .number({ error: (issue) => pidProblem(issue.input) })
  .int({ error: (issue) => pidProblem(issue.input) })
  .min(2, { error: (issue) => pidProblem(issue.input) })
  .max(PID_MAX, { error: (issue) => pidProblem(issue.input) })
  .describe('A process id: a task of yours is stopped as a whole; any other process is signalled alone');

const Port = z
  .number({ error: (issue) => portProblem(issue.input) })
  .int({ error: (issue) => portProblem(issue.input) })
  .min(1, { error: (issue) => portProblem(issue.input) })
  .max(PORT_MAX, { error: (issue) => portProblem(issue.input) })
  .describe('A TCP port: the process listening on it is stopped (the whole task, when it is one of yours)');

const TaskId = z
  .string({ error: (issue) => `task_id must be a task id like bg_12, not ${shown(issue.input)}. ${again}` })
  .min(1, { error: () => `task_id must not be empty. ${again}` })
  .describe('A task id as returned by run_command or list_tasks, like bg_12');

export const KillShellInput = z
  .strictObject(
    { task_id: TaskId.optional(), pid: Pid.optional(), port: Port.optional() },
    {
      error: (issue) =>
        `kill_shell takes only ${KILL_TARGETS}${issue.code === 'unrecognized_keys' ? `, not ${issue.keys.join(', ')}` : ''}. ${again}`,
    },
  )
  .superRefine((value, context) => {
    const given = (['task_id', 'pid', 'port'] as const).filter((key) => value[key] !== undefined);
    if (given.length === 1) return;
    context.addIssue({
      code: 'custom',
      message:
        given.length === 0
          ? `kill_shell needs a target: give exactly one of ${KILL_TARGETS}; none was given.`
          : `kill_shell takes exactly one of ${KILL_TARGETS}; ${given.join(' and ')} were given together.`,
    });
  });

export type KillShellArgs = z.output<typeof KillShellInput>;

/** Exactly one target, as the schema guarantees. */
export type KillTarget = { task_id: string } | { pid: number } | { port: number };

export function killTarget(args: KillShellArgs): KillTarget {
  if (args.task_id !== undefined) return { task_id: args.task_id };
  if (args.pid !== undefined) return { pid: args.pid };
  return { port: args.port! };
}
