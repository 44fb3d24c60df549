import { tunableSchema, type InForce, type TunableId } from '@shared/schemas/settings.js';
import { tunableParts } from '@shared/domain/tunables.js';
import type { PublicSettings } from '@shared/contract.js';
import { bytesLabel, durationLabel } from '../../lib/format.js';

/** How a figure is counted, which decides how it is typed and read. */
export type TunableUnit = 'switch' | 'count' | 'seconds' | 'bytes';

export interface Tunable {
  id: TunableId;
  label: string;
  unit: TunableUnit;
  /** When a change takes effect. None needs a restart: the pool reads its policy at each use. */
  applies: string;
  /** The Settings section that shows it. */
  group: 'background' | 'unattended';
}

/** Every figure of settings.json the Settings page shows, by section, in the order shown. */
export const TUNABLES: readonly Tunable[] = [
  {
    id: 'background.enabled',
    label: 'Background tasks',
    unit: 'switch',
    applies: 'Applies now: while off, new background tasks are refused; running ones go on.',
    group: 'background',
  },
  {
    id: 'background.foregroundWaitSeconds',
    label: 'Foreground wait before handing over',
    unit: 'seconds',
    applies: 'Applies to commands started from now on.',
    group: 'background',
  },
  {
    id: 'background.defaultTimeoutSeconds',
    label: 'Time limit when none is given',
    unit: 'seconds',
    applies: 'Applies to tasks started from now on.',
    group: 'background',
  },
  {
    id: 'background.maxTimeoutSeconds',
    label: 'Longest time limit allowed',
    unit: 'seconds',
    applies: 'Applies to tasks started from now on.',
    group: 'background',
  },
  {
    id: 'background.maxConcurrent',
    label: 'Running at once in a session, at most',
    unit: 'count',
    applies: 'Applies now: a raised limit starts waiting tasks at once.',
    group: 'background',
  },
  {
    id: 'background.maxConcurrentTotal',
    label: 'Running at once across sessions, at most',
    unit: 'count',
    applies: 'Applies now: a raised limit starts waiting tasks at once.',
    group: 'background',
  },
  {
    id: 'background.stopGraceSeconds',
    label: 'Grace before a stop is forced',
    unit: 'seconds',
    applies: 'Applies at the next stop.',
    group: 'background',
  },
  {
    id: 'background.outputBufferBytes',
    label: 'Recent output kept in memory per task',
    unit: 'bytes',
    applies: 'Applies to tasks started from now on (the log on disk keeps everything).',
    group: 'background',
  },
  {
    id: 'background.taskNice',
    label: 'CPU priority of tasks (nice value)',
    unit: 'count',
    applies:
      'Applies to tasks started from now on. 0 runs them as Drover itself; higher, a busy task leaves the processor to Drover and your other programs first, and is slower while they are busy; 19, it takes only what they leave.',
    group: 'background',
  },
  {
    id: 'background.shareTaskCpu',
    label: 'Busy tasks weigh as one program on the processor',
    unit: 'switch',
    applies:
      'Linux. Applies within a second. On, many busy tasks slow Drover and your other programs no more than one busy program would, and a task busy alone runs at full speed; off, each busy task weighs as a program of its own.',
    group: 'background',
  },
  {
    id: 'background.maxAgents',
    label: 'Background agents at once in a session, at most',
    unit: 'count',
    applies: 'Applies now: a raised limit starts waiting agents at once.',
    group: 'background',
  },
  {
    id: 'background.agentMaxTurns',
    label: 'Model calls one sub-agent may make',
    unit: 'count',
    applies: 'Applies to agents started from now on.',
    group: 'background',
  },
  {
    id: 'background.agentMaxTokens',
    label: 'Tokens one sub-agent may use',
    unit: 'count',
    applies: 'Applies to agents started from now on.',
    group: 'background',
  },
  {
    id: 'budget.turns',
    label: 'Unattended turns per session',
    unit: 'count',
    applies:
      'Wake-ups, loop passes and scheduled prompts each count one. Applies now: raised above what a session used, what waited runs.',
    group: 'unattended',
  },
  {
    id: 'budget.tokens',
    label: 'Tokens for unattended turns per session',
    unit: 'count',
    applies: 'As the provider reports them. Applies now, like the turns.',
    group: 'unattended',
  },
  {
    id: 'scheduler.resumeWithoutAsking',
    label: 'Resume schedules after a restart without asking',
    unit: 'switch',
    applies: 'Applies at the next start: off, a banner asks before anything scheduled runs.',
    group: 'unattended',
  },
  {
    id: 'sleep.minSeconds',
    label: 'Shortest sleep of the agent',
    unit: 'seconds',
    applies: 'Applies to the next sleep: a shorter one is raised to it.',
    group: 'unattended',
  },
  {
    id: 'sleep.maxSeconds',
    label: 'Longest sleep per call',
    unit: 'seconds',
    applies: 'Applies to the next sleep: a longer one sleeps this long and the agent calls again (-1: no cap).',
    group: 'unattended',
  },
];

/** The value in force, its default and its source, from the settings a page sees. */
export function inForceOf(settings: PublicSettings, id: TunableId): InForce {
  const [section, key] = tunableParts(id);
  return (settings.inForce[section] as Record<string, InForce>)[key]!;
}

/** The field's schema, as settings.json takes it: the page checks against the very same bounds. */
export function schemaOf(id: TunableId) {
  return tunableSchema(id);
}

/** The field's bounds, read from its schema (null for a switch). */
export function boundsOf(id: TunableId): { min: number; max: number; whole: boolean } | null {
  const schema = schemaOf(id) as { minValue?: number | null; maxValue?: number | null; isInt?: boolean };
  if (schema.minValue === undefined || schema.minValue === null || schema.maxValue == null) return null;
  return { min: schema.minValue, max: schema.maxValue, whole: schema.isInt === true };
}

/** A figure for people: "on", "30 s", "15 min (900 s)", "256 KiB (262144 bytes)", "5". */
export function valueLabel(unit: TunableUnit, value: number | boolean): string {
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  if (unit === 'seconds' && value < 0) return 'no cap';
  if (unit === 'seconds') return value < 60 ? durationLabel(value) : `${durationLabel(value)} (${value} s)`;
  if (unit === 'bytes') return `${bytesLabel(value)} (${value} bytes)`;
  return grouped(value);
}

/** A count with its thousands marked: 2,000,000. */
export function grouped(value: number): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: 3 });
}

/** The unit typed in the field, as the file counts it. */
export function unitWord(unit: TunableUnit): string {
  return unit === 'seconds' ? 'seconds' : unit === 'bytes' ? 'bytes' : '';
}

/**
 * What is wrong with a typed figure, naming the field, or null when the schema takes it. The
 * host checks again with the same schema; this only saves a round trip.
 */
export function problemWith(tunable: Tunable, typed: string): { value: number | boolean } | { problem: string } {
  const name = `${tunable.label} (${tunable.id})`;
  if (tunable.unit === 'switch') return { value: typed === 'on' };
  const text = typed.trim();
  const value = Number(text);
  const bounds = boundsOf(tunable.id);
  const range = bounds ? ` from ${bounds.min} to ${bounds.max}` : '';
  const kind = bounds?.whole ? 'a whole number' : 'a number';
  if (text === '' || !Number.isFinite(value)) return { problem: `${name} must be ${kind}${range}.` };
  if (!schemaOf(tunable.id).safeParse(value).success)
    return { problem: `${name} must be ${kind}${range}; ${text} is not.` };
  return { value };
}
