import { join } from 'node:path';
import { openDatabase } from '../electron/store/database.js';
import { MessagesRepo } from '../electron/store/messages-repo.js';
import { TasksRepo } from '../electron/store/tasks-repo.js';

/**
 * A big session written straight into a data folder before the host starts (the way the
 * repositories write it): finished tasks, and a conversation whose every fourth row is a command
 * naming one of them. Used by the open bench and its e2e spec.
 */
export function seedBigSession(
  dataDir: string,
  options: { session: string; finished: number; messages: number; lastText: string },
): void {
  const { session: SESSION, finished, messages, lastText: LAST_TEXT } = options;
  const db = openDatabase(join(dataDir, 'drover.sqlite'));
  const now = Date.now();
  db.prepare("INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?, 'bench', ?, ?)").run(
    SESSION,
    now,
    now,
  );
  const tasks = new TasksRepo(db);
  const transcript = new MessagesRepo(db);
  const ids: string[] = [];
  db.transaction(() => {
    for (let i = 0; i < finished; i++) {
      const seq = tasks.nextSeq();
      ids.push(`bg_${seq}`);
      tasks.insert({
        id: `bg_${seq}`,
        seq,
        sessionId: SESSION,
        kind: 'command',
        command: `npm run step -- ${i}`,
        cwd: dataDir,
        status: i % 9 === 0 ? 'failed' : 'succeeded',
        exitCode: i % 9 === 0 ? 1 : 0,
        signal: null,
        exitNote: null,
        error: null,
        pid: null,
        pgid: null,
        processStart: null,
        bootId: null,
        runId: 'earlier',
        queuedAt: now - 100_000 + i,
        startedAt: now - 90_000 + i,
        endedAt: now - 80_000 + i,
        seenAt: null,
        logNote: null,
        expectedSeconds: null,
        timeoutSeconds: 900,
        notify: false,
        adopted: false,
        foreground: false,
        mark: null,
        containment: 'group',
        containmentNote: null,
        cgroup: null,
        members: [],
        notifyMode: null,
        checkAfterSeconds: null,
        pingedAt: null,
        eventOffset: 0,
        readyCheck: null,
        readyAt: null,
        notifyReady: false,
        workItem: null,
        ownerTaskId: null,
        agentInfo: null,
        tty: false,
        sandboxed: false,
        sandboxRefusals: [],
        logPath: join(dataDir, `bg_${seq}.log`),
      });
    }
    for (let i = 0; i < messages - 1; i++) {
      // A conversation: the person, the agent, and every fourth row a command naming a finished task.
      const role = i % 4 === 3 && ids.length > 0 ? 'tool' : i % 2 === 0 ? 'user' : 'assistant';
      transcript.insert({
        sessionId: SESSION,
        role,
        text: role === 'tool' ? `npm run step -- ${i}` : role === 'user' ? userText(i) : agentText(i),
        taskId: role === 'tool' ? ids[(i * 7) % ids.length]! : null,
        now: now - 50_000 + i,
      });
    }
    transcript.insert({ sessionId: SESSION, role: 'assistant', text: LAST_TEXT, now });
  })();
  db.close();
}

/** What the person writes: plain sentences. */
function userText(i: number): string {
  return `Message ${i}: ${'words of the conversation '.repeat(6)}`;
}

/** What the agent answers: Markdown, as replies are (emphasis, code, a list, a link). */
function agentText(i: number): string {
  return [
    `Message ${i}: the step **passed** after \`npm run step -- ${i}\`, and ${'words of the conversation '.repeat(3)}`,
    '',
    `- the build took *${i % 60} s*`,
    `- see [the log](https://example.com/log/${i}) for the details`,
  ].join('\n');
}
