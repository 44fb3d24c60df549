import { DEFAULT_TASK_NICE } from '../process/priority.js';

/** The pool's policy, stated once. Every figure here is a default a setting may change. */
export interface PoolPolicy {
  /** Background tasks one session runs at once; the rest of its tasks wait in start order. */
  maxConcurrent: number;
  /** Background tasks running at once across every session, so many sessions cannot exhaust the machine. */
  maxConcurrentTotal: number;
  /** Hard limit when neither a timeout nor an estimate is given. */
  defaultTimeoutSeconds: number;
  /** No task runs longer than this; an adopted task gets exactly this. */
  maxTimeoutSeconds: number;
  /** An estimate buys this many times itself… */
  estimateMultiplier: number;
  /** …but never less than this. */
  estimateFloorSeconds: number;
  /** Bytes of recent output kept in memory per task; the log on disk keeps everything. */
  outputWindowBytes: number;
  /** Bytes read back from the end of a log for a task this run no longer holds in memory. */
  persistedReadBytes: number;
  /** Between SIGTERM and SIGKILL when stopping a task. */
  stopGraceMs: number;
  /** How long a foreground run is waited for before it is handed to the pool. */
  foregroundWaitMs: number;
  /** Quiet this long while running and a task is marked silent. */
  silentAfterMs: number;
  /** Whether the pool takes background work at all. */
  enabled: boolean;
  /** Background sub-agents one session runs at once; the rest wait in start order. */
  maxAgents: number;
  /** Model calls (steps) one sub-agent may make before it is ended. */
  agentMaxSteps: number;
  /** Tokens one sub-agent may use (as the provider reports them) before it is ended. */
  agentMaxTokens: number;
  /** The nice value command and monitor tasks run at (process/priority.ts), set as each starts; 0: Drover's own. */
  taskNice: number;
  /** Whether busy command and monitor tasks share one program's CPU weight (Linux; process/task-weight.ts). */
  shareTaskCpu: boolean;
}

export const DEFAULT_POLICY: PoolPolicy = {
  maxConcurrent: 5,
  maxConcurrentTotal: 20,
  defaultTimeoutSeconds: 900,
  maxTimeoutSeconds: 3600,
  estimateMultiplier: 3,
  estimateFloorSeconds: 60,
  outputWindowBytes: 256 * 1024,
  persistedReadBytes: 256 * 1024,
  stopGraceMs: 5_000,
  foregroundWaitMs: 30_000,
  silentAfterMs: 60_000,
  enabled: true,
  maxAgents: 4,
  agentMaxSteps: 40,
  agentMaxTokens: 1_000_000,
  taskNice: DEFAULT_TASK_NICE,
  shareTaskCpu: true,
};

/**
 * The hard limit of a task: an explicit timeout wins verbatim (even a tight one); else
 * the estimate times the multiplier, floored; else the default. Always capped.
 */
export function resolveTimeoutSeconds(
  request: { timeoutSeconds?: number | undefined; expectedSeconds?: number | undefined },
  policy: Pick<
    PoolPolicy,
    'defaultTimeoutSeconds' | 'maxTimeoutSeconds' | 'estimateMultiplier' | 'estimateFloorSeconds'
  >,
): number {
  let seconds: number;
  if (request.timeoutSeconds !== undefined) seconds = request.timeoutSeconds;
  else if (request.expectedSeconds !== undefined) {
    seconds = Math.max(request.expectedSeconds * policy.estimateMultiplier, policy.estimateFloorSeconds);
  } else seconds = policy.defaultTimeoutSeconds;
  return Math.max(1, Math.min(Math.ceil(seconds), policy.maxTimeoutSeconds));
}
