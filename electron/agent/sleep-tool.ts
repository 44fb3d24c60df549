import type { Node } from 'web-tree-sitter';
import { SLEEP_DEFAULTS, SLEEP_NO_CAP, type SleepSettings } from '../../shared/schemas/settings.js';
import { SLEEP_REQUEST_MAX_SECONDS, SleepInput, TIME_OF_DAY, type SleepArgs } from '../../shared/schemas/tools.js';
import { parseShell } from '../permissions/shell-parser.js';
import type { AgentTool, ToolContext, ToolOutcome } from './tools.js';

/** How often a sleeping call's row shows its progress. */
export const SLEEP_PROGRESS_MS = 1000;

/** A foreground shell `sleep` this long or longer is refused by run_command, with a pointer to the sleep tool. */
export const FOREGROUND_SLEEP_LIMIT_SECONDS = 2;

/** The figures in force for one call: settings.json's, else the defaults. */
export interface SleepPolicy {
  minSeconds: number;
  /** -1 (SLEEP_NO_CAP): a call sleeps as long as it is asked. */
  maxSeconds: number;
}

export function sleepPolicy(settings: SleepSettings | undefined): SleepPolicy {
  const maxSeconds = settings?.maxSeconds ?? SLEEP_DEFAULTS.maxSeconds;
  const minSeconds = settings?.minSeconds ?? SLEEP_DEFAULTS.minSeconds;
  // A minimum above the cap (one set, the other left at its default) would be raised and then cut
  // again at every call, a wait that never ends: the cap wins.
  return { minSeconds: maxSeconds === SLEEP_NO_CAP ? minSeconds : Math.min(minSeconds, maxSeconds), maxSeconds };
}

/** A duration as the person and the model read it: "42s", "1m 30s", "2h 5m" (whole seconds). */
export function sleepDuration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  const parts: string[] = [];
  const days = Math.floor(whole / 86_400);
  const hours = Math.floor((whole % 86_400) / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = whole % 60;
  if (days) parts.push(`${days}d`);
  if (hours) parts.push(`${hours}h`);
  if (minutes) parts.push(`${minutes}m`);
  if (rest || parts.length === 0) parts.push(`${rest}s`);
  return parts.join(' ');
}

/**
 * Whole seconds from `now` to the next `HH:MM` in local time: today if it is still ahead, else
 * tomorrow. Built from the calendar fields, so a day with a daylight-saving change counts its real length.
 */
export function secondsUntil(time: string, now: Date): number {
  const match = TIME_OF_DAY.exec(time);
  if (!match) throw new Error(`not a time of day: ${time}`);
  const [hours, minutes] = [Number(match[1]), Number(match[2])];
  let target = new Date(now.getFullYear(), now.getMonth(), now.getDate(), hours, minutes);
  if (target.getTime() <= now.getTime())
    target = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1, hours, minutes);
  return Math.ceil((target.getTime() - now.getTime()) / 1000);
}

/** What one call does with a request once the settings have shaped it. */
export interface SleepPlan {
  /** What the model asked for, in seconds (for `until`, counted from now). */
  asked: number;
  /** This call's sleep: the request raised to the minimum, then cut to the cap. */
  seconds: number;
  /** The request was below the minimum. */
  raised: boolean;
  /** Left of the request after this call (more than 0 when the cap cut it). */
  remaining: number;
  /** The time of day asked for, when the request named one. */
  until: string | null;
  policy: SleepPolicy;
}

export function planSleep(args: Pick<SleepArgs, 'seconds' | 'until'>, now: Date, policy: SleepPolicy): SleepPlan {
  const until = args.until ?? null;
  const asked = until !== null ? secondsUntil(until, now) : args.seconds!;
  const raised = asked < policy.minSeconds;
  const wanted = Math.max(asked, policy.minSeconds);
  const seconds = policy.maxSeconds === SLEEP_NO_CAP ? wanted : Math.min(wanted, policy.maxSeconds);
  return { asked, seconds, raised, remaining: wanted - seconds, until, policy };
}

type Ending = 'slept' | 'message' | 'stopped';

/** What the model is told of a call that ended: how long, what reshaped it, and what to do next. */
export function answerForModel(plan: SleepPlan, ending: Ending, elapsed: number): string {
  const of = `${sleepDuration(elapsed)} of ${sleepDuration(plan.seconds)}`;
  if (ending === 'message')
    return `Interrupted by a message from the person after ${of}. Their message follows: read it and answer it before you wait again.`;
  if (ending === 'stopped') return `Stopped by the person after ${of}.`;
  if (plan.raised)
    return `Slept ${sleepDuration(plan.seconds)} (raised from ${sleepDuration(plan.asked)} to the ${sleepDuration(plan.policy.minSeconds)} minimum).`;
  if (plan.remaining > 0) {
    // In seconds even for `until`: a call that lands just after the time would otherwise mean tomorrow.
    const again = `seconds: ${Math.round(plan.remaining)}`;
    return (
      `Slept ${sleepDuration(plan.seconds)} of ${sleepDuration(plan.asked)} (capped at the ${sleepDuration(plan.policy.maxSeconds)} maximum per call); ` +
      `${sleepDuration(plan.remaining)} remain: call sleep again with ${again} to go on.`
    );
  }
  return `Slept ${sleepDuration(plan.seconds)}.`;
}

/** What the person reads of the same call: Drover's words, the model's reason quoted as plain text. */
export function answerForPerson(plan: SleepPlan, ending: Ending, elapsed: number, reason: string | null): string {
  const of = `${sleepDuration(elapsed)} of ${sleepDuration(plan.seconds)}`;
  if (ending === 'message') return `Woke after ${of}: you sent a message.`;
  if (ending === 'stopped') return `Stopped after ${of}.`;
  const why = reason ? `: ${reason}` : '';
  if (plan.raised)
    return `Slept ${sleepDuration(plan.seconds)}${why} (raised from ${sleepDuration(plan.asked)} to the ${sleepDuration(plan.policy.minSeconds)} minimum).`;
  if (plan.remaining > 0)
    return `Slept ${sleepDuration(plan.seconds)} of the ${sleepDuration(plan.asked)} asked${why} (at most ${sleepDuration(plan.policy.maxSeconds)} per call).`;
  return `Slept ${sleepDuration(plan.seconds)}${why}.`;
}

/** The row's line while it sleeps: "Sleeping 1m 30s of 5m: waiting for CI". */
export function progressLine(elapsed: number, plan: SleepPlan, reason: string | null): string {
  return `Sleeping ${sleepDuration(elapsed)} of ${sleepDuration(plan.seconds)}${reason ? `: ${reason}` : ''}`;
}

/**
 * Waits `ms`, ending early when the turn is stopped or the person posts a message; calls `tick`
 * every second meanwhile. Timers and listeners are this call's own, so sleeps side by side in one
 * step never meet.
 */
function sleepFor(ms: number, context: ToolContext, tick: () => void): Promise<Ending> {
  const stop = context.signal;
  const message = context.personMessage?.signal;
  if (stop.aborted) return Promise.resolve('stopped');
  if (message?.aborted) return Promise.resolve('message');
  return new Promise((resolve) => {
    const finish = (ending: Ending) => {
      clearTimeout(timer);
      clearInterval(ticker);
      stop.removeEventListener('abort', onStop);
      message?.removeEventListener('abort', onMessage);
      resolve(ending);
    };
    const onStop = () => finish('stopped');
    const onMessage = () => finish('message');
    const timer = setTimeout(() => finish('slept'), ms);
    const ticker = setInterval(tick, SLEEP_PROGRESS_MS);
    stop.addEventListener('abort', onStop, { once: true });
    message?.addEventListener('abort', onMessage, { once: true });
  });
}

/**
 * sleep: the model waits without holding a shell process. It runs no command, so it passes no
 * permission gate; the settings are read at every call.
 */
export function sleepTool(settings: () => SleepSettings | undefined): AgentTool {
  return {
    name: 'sleep',
    aliases: [],
    description:
      'Wait without running anything: seconds, or until a local time of day (HH:MM). Use it instead of a shell sleep. ' +
      'The person sees your reason while you wait; a message from them or Stop wakes you early. ' +
      'A long wait is cut per call (by default at 10 minutes): the answer says what remains, so call again to go on.',
    input: SleepInput,
    async execute(args: SleepArgs, context) {
      const plan = planSleep(args, new Date(), sleepPolicy(settings()));
      const reason = args.reason || null;
      const started = Date.now();
      const elapsed = () => Math.floor((Date.now() - started) / 1000);
      context.progress?.(progressLine(0, plan, reason));
      const ending = await sleepFor(plan.seconds * 1000, context, () =>
        context.progress?.(progressLine(elapsed(), plan, reason)),
      );
      // The message waits in the queue behind this turn: the turn ends after this step so the
      // model reads it next, instead of going on blind (every later sleep would end at once).
      if (ending === 'message') context.personMessage?.yieldTurn();
      const done = ending === 'slept' ? plan.seconds : elapsed();
      const text = answerForModel(plan, ending, done);
      return { text, display: { kind: 'text', text: answerForPerson(plan, ending, done, reason) } };
    },
  };
}

/** GNU sleep's units; a bare number counts seconds. */
const SLEEP_UNITS: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 };
const SLEEP_ARGUMENT = /^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/;

/**
 * The longest `sleep` with literal durations a command line waits for in the foreground: in any
 * statement of its sequence (`make; sleep 30`, `cd x && sleep 30`), a pipeline, a subshell or a
 * group, but not one sent off with `&`. Null when it waits for none, or before the shell grammar is loaded.
 */
export function foregroundSleepSeconds(command: string): number | null {
  return parseShell(command, (parsed) => {
    if (parsed.hasError) return null;
    const seconds = foregroundCommands(parsed.root)
      .map(sleepSecondsOf)
      .filter((value): value is number => value !== null);
    return seconds.length > 0 ? Math.max(...seconds) : null;
  });
}

/** The simple commands a line runs and waits for (not those sent to the background). */
function foregroundCommands(node: Node | null): Node[] {
  if (!node) return [];
  switch (node.type) {
    case 'command':
      return [node];
    case 'redirected_statement':
      return foregroundCommands(node.childForFieldName('body'));
    case 'list':
    case 'pipeline':
      return node.namedChildren.flatMap(foregroundCommands);
    case 'program':
    case 'subshell':
    case 'compound_statement':
      return node.namedChildren
        .filter((child) => child.type !== 'comment' && child.nextSibling?.type !== '&')
        .flatMap(foregroundCommands);
    default:
      return [];
  }
}

function sleepSecondsOf(command: Node | null): number | null {
  if (!command) return null;
  let named = false;
  let total = 0;
  let count = 0;
  for (const part of command.namedChildren) {
    if (part.type === 'variable_assignment') continue;
    if (part.type === 'command_name') {
      const name = part.namedChildren;
      if (name.length !== 1 || name[0]!.type !== 'word' || name[0]!.text.split('/').pop() !== 'sleep') return null;
      named = true;
      continue;
    }
    const seconds = durationOf(literalOf(part));
    if (seconds === null) return null;
    total += seconds;
    count += 1;
  }
  return named && count > 0 ? total : null;
}

function literalOf(node: Node): string | null {
  if (node.type === 'word' || node.type === 'number') return node.text;
  if (node.type === 'raw_string') return node.text.slice(1, -1);
  if (node.type === 'string' && node.namedChildren.every((part) => part.type === 'string_content'))
    return node.text.slice(1, -1);
  return null;
}

function durationOf(word: string | null): number | null {
  if (word === null) return null;
  if (word === 'inf' || word === 'infinity') return Infinity;
  const match = SLEEP_ARGUMENT.exec(word);
  return match ? Number(match[1]) * SLEEP_UNITS[match[2]!]! : null;
}

/**
 * run_command's answer to a foreground `sleep N` (N ≥ 2) at the start of a command line: not run,
 * nobody asked, and the model pointed to the sleep tool. Null when the line may run.
 */
export function foregroundSleepRefusal(command: string): ToolOutcome | null {
  const seconds = foregroundSleepSeconds(command);
  if (seconds === null || seconds < FOREGROUND_SLEEP_LIMIT_SECONDS) return null;
  const call = Number.isFinite(seconds)
    ? `sleep with seconds: ${Math.min(Math.ceil(seconds), SLEEP_REQUEST_MAX_SECONDS)} and a short reason`
    : 'sleep with seconds or until';
  return {
    failed: true,
    display: {
      kind: 'not_run',
      rejected: false,
      reason: 'a shell sleep would hold the turn, so the model was pointed to its sleep tool',
    },
    text:
      `Not run: a foreground shell sleep of ${FOREGROUND_SLEEP_LIMIT_SECONDS} seconds or more is refused. ` +
      `To wait, call ${call}: it holds no process, and the person can wake you. Run what came after the sleep as its own command once you have waited.`,
  };
}
