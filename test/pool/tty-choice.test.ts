import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../electron/store/database.js';
import { migrations } from '../../electron/store/migrations/index.js';
import { TasksRepo } from '../../electron/store/tasks-repo.js';
import type { TaskRow } from '../../shared/schemas/task.js';
import { setupAgent } from '../agent/agent-harness.js';
import { tempDir, until } from '../helpers.js';

/** Prints whether the command's stdout is a terminal. */
const PROBE = 'test -t 1 && echo "out is a tty" || echo "out is a pipe"';

type Agent = Awaited<ReturnType<typeof setupAgent>>;

async function tasks(agent: Agent): Promise<TaskRow[]> {
  return (await agent.call<{ tasks: TaskRow[] }>('listTasks', { sessionId: agent.session.id })).tasks;
}

async function settled(agent: Agent, id: string): Promise<TaskRow> {
  let row: TaskRow | undefined;
  await until(
    async () => {
      row = (await tasks(agent)).find((task) => task.id === id);
      return row !== undefined && !row.running && row.status !== 'queued';
    },
    `${id} to end`,
    15_000,
  );
  return row!;
}

async function logOf(agent: Agent, id: string): Promise<string> {
  const read = await agent.call<{ data: string }>('readTaskLog', { sessionId: agent.session.id, taskId: id });
  return read.data;
}

describe("which runner a task gets: the model's commands on pipes, a person's in a terminal", () => {
  it('run_command runs without a terminal unless it asks with tty: true, foreground and background', async () => {
    const agent = await setupAgent();
    agent.model.enqueue(
      { toolCalls: [{ name: 'run_command', args: { command: PROBE } }] },
      { toolCalls: [{ name: 'run_command', args: { command: PROBE, tty: true } }] },
      { toolCalls: [{ name: 'run_command', args: { command: PROBE, background: true } }] },
      { toolCalls: [{ name: 'run_command', args: { command: PROBE, background: true, tty: true } }] },
      { text: 'done' },
    );
    await agent.say('probe');
    expect(agent.model.requests[1]!.transcript).toContain('out is a pipe');
    expect(agent.model.requests[2]!.transcript).toContain('out is a tty');
    const rows = await Promise.all(['bg_1', 'bg_2', 'bg_3', 'bg_4'].map((id) => settled(agent, id)));
    expect(rows.map((row) => row.tty)).toEqual([false, true, false, true]);
    expect(await logOf(agent, 'bg_3')).toBe('out is a pipe\n');
    expect(await logOf(agent, 'bg_4')).toBe('out is a tty\n');
  });

  it('monitor_command does the same, and the tool offers tty once, defaulting to false', async () => {
    const agent = await setupAgent();
    agent.model.enqueue(
      { toolCalls: [{ name: 'monitor_command', args: { command: PROBE, notify: 'none' } }] },
      { toolCalls: [{ name: 'monitor_command', args: { command: PROBE, notify: 'none', tty: true } }] },
      { text: 'done' },
    );
    await agent.say('watch');
    const [pipe, terminal] = await Promise.all(['mon_1', 'mon_2'].map((id) => settled(agent, id)));
    expect([pipe!.tty, terminal!.tty]).toEqual([false, true]);
    expect(await logOf(agent, 'mon_1')).toBe('out is a pipe\n');
    expect(await logOf(agent, 'mon_2')).toBe('out is a tty\n');
    const offered = agent.model.requests[0]!.body as {
      tools: {
        function: { name: string; parameters: { properties: Record<string, { type?: string; default?: unknown }> } };
      }[];
    };
    for (const name of ['run_command', 'monitor_command']) {
      const tty = offered.tools.find((tool) => tool.function.name === name)!.function.parameters.properties.tty!;
      expect(tty, name).toMatchObject({ type: 'boolean', default: false });
    }
  });

  it('refuses a tty that is not a boolean, naming the field, and runs nothing', async () => {
    const agent = await setupAgent();
    agent.model.enqueue(
      { toolCalls: [{ name: 'run_command', args: { command: 'echo never', tty: 'yes' } }] },
      { text: 'done' },
    );
    await agent.say('try');
    expect(agent.model.requests[1]!.transcript).toMatch(/Invalid arguments for run_command: .*tty/);
    expect(await tasks(agent)).toEqual([]);
  });

  it("the person's lines get a terminal, and a rerun keeps what the task had", async () => {
    const agent = await setupAgent();
    const sessionId = agent.session.id;
    await agent.call('runShell', { sessionId, command: PROBE, background: false });
    agent.model.enqueue({ toolCalls: [{ name: 'run_command', args: { command: PROBE } }] }, { text: 'done' });
    await agent.say('probe');
    const [person, model] = await Promise.all(['bg_1', 'bg_2'].map((id) => settled(agent, id)));
    expect([person!.tty, model!.tty]).toEqual([true, false]);
    await agent.call('rerunTask', { sessionId, taskId: 'bg_2' });
    await agent.call('rerunTask', { sessionId, taskId: 'bg_1' });
    const [again, personAgain] = await Promise.all(['bg_3', 'bg_4'].map((id) => settled(agent, id)));
    expect(again!.tty).toBe(false);
    expect(await logOf(agent, 'bg_3')).toBe('out is a pipe\n');
    expect(personAgain!.tty).toBe(true);
    expect(await logOf(agent, 'bg_4')).toBe('out is a tty\n');
  });
});

describe('the stored runner choice', () => {
  it('reads a task stored before pipes (migration 15) as a terminal task, and keeps a pipe task a pipe task', () => {
    const file = join(tempDir(), 'drover.sqlite');
    const old = openDatabase(file, migrations.slice(0, 14));
    old.prepare("INSERT INTO sessions (id, title, created_at, updated_at) VALUES ('s1', 't', 0, 0)").run();
    old
      .prepare(
        `INSERT INTO tasks (id, seq, session_id, kind, command, cwd, status, run_id, queued_at, timeout_seconds,
           notify, adopted, foreground, log_path)
         VALUES ('bg_1', 1, 's1', 'command', 'make', '/', 'succeeded', 'r0', 0, 60, 0, 0, 0, '/tmp/bg_1.log')`,
      )
      .run();
    old.close();

    const db = openDatabase(file);
    const repo = new TasksRepo(db);
    const before = repo.get('bg_1')!;
    expect(before.tty).toBe(true);
    repo.insert({ ...before, id: 'bg_2', seq: 2, tty: false });
    expect(repo.get('bg_2')!.tty).toBe(false);
    expect(repo.listBySession('s1', () => {}).map((record) => record.tty)).toEqual([true, false]);
    db.close();
  });
});
