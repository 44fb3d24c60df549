import { DroverError } from '../../shared/ipc/errors.js';
import type { z } from 'zod';
import { RunCommandInput } from '../../shared/schemas/tools.js';
import type { TaskPool } from '../pool/pool.js';
import {
  adoptionNotice,
  type ForegroundHandovers,
  formatDuration,
  movedDisplay,
  refusedAdoptionNotice,
  requestedAdoptionNotice,
  SETTLING_WAIT_MS,
} from '../pool/adoption.js';
import { fencedOutput } from './task-output.js';
import { failureWarning, statusLine } from './task-words.js';
import type { AgentTool, ToolOutcome, WorkItemLink } from './tools.js';
import type { Outcome } from '../permissions/permission-service.js';
import { portHint } from './port-hint.js';
import { describeReadyCheck } from '../pool/readiness.js';
import { foregroundSleepRefusal } from './sleep-tool.js';

/** How long a sandboxed foreground run's answer waits for the sandbox's last reports. */
const SANDBOX_REPORT_GRACE_MS = 150;

export const RUN_COMMAND_DESCRIPTION =
  'Run a shell command. A foreground run waits timeout_seconds (default 30 s) and is then moved to the background ' +
  '(not killed). background: true returns a task id at once; use it for builds, tests, installs and servers.';

/** The same tool with background work turned off in the settings: foreground only. */
export const FOREGROUND_ONLY_DESCRIPTION =
  'Run a shell command and wait for it: timeout_seconds (default 30 s) is how long. A run still going then is stopped.';

/**
 * How long a foreground run is waited for before it is handed to the background (spec
 * background-tasks.md, "Adoption"): the model's timeout_seconds, else the policy's wait, never past
 * the longest a task may run. It is a wait, never a kill: the run's own hard limit is that maximum.
 */
export function foregroundWaitMs(
  timeoutSeconds: number | undefined,
  policy: { foregroundWaitMs: number; maxTimeoutSeconds: number },
): number {
  if (timeoutSeconds === undefined) return policy.foregroundWaitMs;
  return Math.min(timeoutSeconds, policy.maxTimeoutSeconds) * 1000;
}

/** The work item a background start names, checked to exist; undefined when none is named. */
export function workItemFor(
  link: WorkItemLink | undefined,
  sessionId: string,
  itemId: number | undefined,
): { listId: string; itemId: number } | undefined {
  if (itemId === undefined) return undefined;
  if (!link) throw new DroverError('unavailable', 'work items are not available here');
  return link(sessionId, itemId);
}

/** The answer to a command the gate did not let run: rejected by the person, or refused by a rule. */
export function notRun(permission: Extract<Outcome, { allowed: false }>, command: string): ToolOutcome {
  const rejected = permission.rejected === true;
  return {
    failed: true,
    rejected,
    display: { kind: 'not_run', rejected, reason: rejected ? null : permission.reason },
    text: rejected
      ? `Not run: the person rejected \`${command}\`. Do not run it again, or a variant of it, unless they ask you to.`
      : `Not run: ${permission.reason}.`,
  };
}

export function runCommandTool(pool: TaskPool, handovers: ForegroundHandovers, link?: WorkItemLink): AgentTool {
  const output = (row: Parameters<typeof fencedOutput>[1]) => fencedOutput(pool, row);
  return {
    name: 'run_command',
    aliases: ['shell_command', 'bash', 'Bash'],
    description: RUN_COMMAND_DESCRIPTION,
    input: RunCommandInput,
    async execute(args: z.output<typeof RunCommandInput>, context) {
      const cwd = args.cwd ?? context.cwd;
      // Without the background option (turned off in the settings) the argument is absent: foreground.
      const background = args.background === true;
      // A foreground `sleep N` would hold the turn and a shell for nothing: refused before anyone is
      // asked, with a pointer to the sleep tool. A background one is an ordinary task.
      const sleepRefused = background ? null : foregroundSleepRefusal(args.command);
      if (sleepRefused) return sleepRefused;
      // Backgrounding is never a way around approval: both paths pass the gate first.
      if (args.work_item_id !== undefined && !background)
        throw new DroverError(
          'invalid_input',
          'Invalid arguments for run_command: work_item_id: is for background work only (with background: true)',
        );
      // The item is checked before the person is asked: a call that cannot run is not put to them.
      const workItem = workItemFor(link, context.sessionId, args.work_item_id);
      const permission = await context.permit(args.command, cwd, background, {
        sandboxable: true,
        outside: args.sandbox === false,
      });
      if (!permission.allowed) return notRun(permission, args.command);
      const request = {
        sessionId: context.sessionId,
        command: args.command,
        cwd,
        // The model's commands run on pipes unless it asks for a terminal (plain text costs it fewer tokens).
        tty: args.tty === true,
        sandboxed: permission.sandboxed === true,
        expectedSeconds: args.expected_seconds,
        timeoutSeconds: args.timeout_seconds,
        notifyOnFinish: args.notify_on_finish === true,
        ready: args.ready,
        notifyOnReady: args.notify_on_ready,
        workItem,
        owner: context.owner?.taskId,
      };
      if (background) {
        const record = await pool.start(request);
        context.onTask?.(record.id);
        const started = pool.row(context.sessionId, record.id);
        return {
          taskId: record.id,
          display: { kind: 'started', taskId: record.id },
          text: [
            `Started background task ${started.id}: ${started.status}${started.pid ? `, pid ${started.pid}` : ''}, in ${started.cwd}.`,
            `Hard timeout ${formatDuration(started.timeoutSeconds)}. Log: ${started.logPath}.`,
            started.error ? `It could not start: ${started.error}.` : '',
            started.readyCheck
              ? `Ready when: ${describeReadyCheck(started.readyCheck)}${started.notifyOnReady ? '; you will be woken when it is' : ''}.`
              : '',
            started.notifyOnFinish
              ? 'You will be woken when it ends; you may end your turn.'
              : 'Read it with read_task_output; wait with wait: true.',
            portHint(pool.list(context.sessionId), args.command, started.id),
          ]
            .filter(Boolean)
            .join('\n'),
        };
      }
      const waitMs = foregroundWaitMs(args.timeout_seconds, pool.policy);
      // A foreground timeout_seconds is the wait above, not a hard limit: the run may go on for the
      // longest a task may run, which is what it keeps if it is handed over.
      const record = await pool.startForeground({ ...request, timeoutSeconds: pool.policy.maxTimeoutSeconds });
      context.onTask?.(record.id);
      const handover = handovers.wait(record.id);
      let settled: unknown;
      try {
        settled = await Promise.race([pool.waitFor(record.id, waitMs, context.signal), handover.requested]);
      } finally {
        handover.done();
      }
      const follow = (id: string) => ({ read: `read_task_output task_id="${id}"`, stop: `stop_task task_id="${id}"` });
      if (settled === 'moved') {
        // The person pressed "Background": already adopted, told as the timed handover tells it.
        const moved = pool.row(context.sessionId, record.id);
        return {
          taskId: record.id,
          display: movedDisplay(moved, moved.elapsedSeconds, true),
          text: `${requestedAdoptionNotice(moved, follow(moved.id))}\nOutput so far:\n${await output(moved)}`,
        };
      }
      const ran = async () => {
        // What the sandbox refused reaches the row through its worker just after the command ends.
        if (pool.row(context.sessionId, record.id).sandboxed)
          await new Promise((resolve) => setTimeout(resolve, SANDBOX_REPORT_GRACE_MS));
        const done = pool.row(context.sessionId, record.id);
        const text = `${statusLine(done)}${failureWarning(done)}\n${await output(done)}`;
        return { taskId: record.id, display: { kind: 'ran' } as const, text };
      };
      if (settled) return ran();
      const refused = context.signal.aborted ? 'the turn was cancelled' : pool.adopt(record.id);
      // Exited as the wait ran out, its end being recorded: nothing was handed over; answer its result.
      if (refused === null && !pool.row(context.sessionId, record.id).adopted) {
        await pool.waitFor(record.id, SETTLING_WAIT_MS);
        return ran();
      }
      if (refused === null) {
        const adopted = pool.row(context.sessionId, record.id);
        const notice = adoptionNotice(adopted, waitMs, follow(adopted.id));
        return {
          taskId: record.id,
          display: movedDisplay(adopted, waitMs / 1000, false),
          text: `${notice}\nOutput so far:\n${await output(adopted)}`,
        };
      }
      await pool.stop(context.sessionId, record.id, context.signal.aborted ? 'cancelled' : 'refused', refused);
      const ended = pool.row(context.sessionId, record.id);
      const hint = pool.policy.enabled ? 'Run it with background: true instead.' : '';
      return {
        taskId: record.id,
        display: { kind: 'not_moved', reason: refused },
        text: `${refusedAdoptionNotice(ended, refused, hint)}\n${await output(ended)}`,
      };
    },
  };
}
