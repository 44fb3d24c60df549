import { describe, expect, it } from 'vitest';
import { blockedReasonFor } from '../../electron/work/work-links.js';
import type { TaskRow } from '../../shared/schemas/task.js';

const row = (patch: Partial<TaskRow>) =>
  ({ id: 'bg_4', command: 'npm test', status: 'failed', exitCode: 1, exitNote: null, ...patch }) as TaskRow;

describe('why a linked task blocks its work item', () => {
  it('a failure, a timeout and a stop block it, in words; a success or a conventional exit does not', () => {
    expect(blockedReasonFor(row({}))).toBe('bg_4 (npm test) failed, exit code 1');
    expect(blockedReasonFor(row({ status: 'timed_out', exitCode: 143 }))).toBe(
      'bg_4 (npm test) timed out, exit code 143',
    );
    expect(blockedReasonFor(row({ status: 'stopped', exitCode: 143 }))).toBe('bg_4 (npm test) was stopped');
    expect(blockedReasonFor(row({ status: 'succeeded', exitCode: 0 }))).toBeNull();
    expect(blockedReasonFor(row({ command: 'grep x log', exitNote: 'no matches found' }))).toBeNull();
  });
});
