import { tunableSchema, type AgentKey, type BackgroundKey, type InForce } from '@shared/schemas/settings.js';
import type { PublicSettings } from '@shared/contract.js';
import type { TunableId } from '../../lib/state/settings.svelte.js';
import { bytesLabel, durationLabel } from '../../lib/format.js';

/** How a figure is counted, which decides how it is typed and read. */
export type TunableUnit = 'switch' | 'count' | 'seconds' | 'bytes';

export interface Tunable {
  id: TunableId;
  label: string;
  unit: TunableUnit;
  /** When a change takes effect. None needs a restart: the pool reads its policy at each use. */
  applies: string;
}

/** Every figure of settings.json the Background tasks section shows, in the order shown. */
export const TUNABLES: readonly Tunable[] = [
  {
    id: 'background.enabled',
    label: 'Background tasks',
    unit: 'switch',
    applies: 'Applies now: while off, new background tasks are refused; running ones go on.',
  },
  {
    id: 'background.foregroundWaitSeconds',
    label: 'Foreground wait before handing over',
    unit: 'seconds',
    applies: 'Applies to commands started from now on.',
  },
  {
    id: 'background.defaultTimeoutSeconds',
    label: 'Time limit when none is given',
    unit: 'seconds',
    applies: 'Applies to tasks started from now on.',
  },
  {
    id: 'background.maxTimeoutSeconds',
    label: 'Longest time limit allowed',
    unit: 'seconds',
    applies: 'Applies to tasks started from now on.',
  },
  {
    id: 'background.maxConcurrent',
    label: 'Running at once in a session, at most',
    unit: 'count',
    applies: 'Applies now: a raised limit starts waiting tasks at once.',
  },
  {
    id: 'background.maxConcurrentTotal',
    label: 'Running at once across sessions, at most',
    unit: 'count',
    applies: 'Applies now: a raised limit starts waiting tasks at once.',
  },
  {
    id: 'background.stopGraceSeconds',
    label: 'Grace before a stop is forced',
    unit: 'seconds',
    applies: 'Applies at the next stop.',
  },
  {
    id: 'background.outputBufferBytes',
    label: 'Recent output kept in memory per task',
    unit: 'bytes',
    applies: 'Applies to tasks started from now on (the log on disk keeps everything).',
  },
  {
    id: 'agent.maxWakesPerSession',
    label: 'Wake-ups per session and run',
    unit: 'count',
    applies: 'Applies now (counted since Drover started).',
  },
];

/** The value in force, its default and its source, from the settings a page sees. */
export function inForceOf(settings: PublicSettings, id: TunableId): InForce {
  const [section, key] = split(id);
  return section === 'background'
    ? settings.inForce.background[key as BackgroundKey]
    : settings.inForce.agent[key as AgentKey];
}

/** The field's schema, as settings.json takes it: the page checks against the very same bounds. */
export function schemaOf(id: TunableId) {
  const [section, key] = split(id);
  return section === 'background'
    ? tunableSchema('background', key as BackgroundKey)
    : tunableSchema('agent', key as AgentKey);
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
  if (unit === 'seconds') return value < 60 ? durationLabel(value) : `${durationLabel(value)} (${value} s)`;
  if (unit === 'bytes') return `${bytesLabel(value)} (${value} bytes)`;
  return String(value);
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

function split(id: TunableId): ['background' | 'agent', string] {
  return id.split('.') as ['background' | 'agent', string];
}
