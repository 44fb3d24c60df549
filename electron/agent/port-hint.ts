import type { TaskRow } from '../../shared/schemas/task.js';

/** `--port 3000`, `--port=3000`, `-p 3000`, `PORT=3000`, `:3000`, `localhost:3000`: a number a command would listen on. */
const PORT_MENTION = /(?:--port[= ]|-p[= ]?|\bPORT=|:)(\d{2,5})\b/g;

function portsMentioned(command: string): Set<number> {
  return new Set([...command.matchAll(PORT_MENTION)].map((match) => Number(match[1])));
}

/**
 * Which running tasks of the session already hold a port this command would want: one that runs
 * the very same command and listens, or one listening on a port the command names. Said in the
 * start answer, so a dev server started twice is reused rather than fought over.
 */
export function portHint(rows: readonly TaskRow[], command: string, startedId: string): string {
  const mentioned = portsMentioned(command);
  const same = command.trim();
  const holders = rows.filter((row) => row.id !== startedId && row.running && row.ports.length > 0);
  const lines = holders.flatMap((row) => {
    const clash = row.ports.filter((port) => mentioned.has(port));
    if (clash.length === 0 && row.command.trim() !== same) return [];
    const ports = clash.length > 0 ? clash : row.ports;
    return [
      `Note: ${row.id} (\`${row.command}\`) already listens on port ${ports.join(', ')}. Reuse it rather than run a second copy; stop it first (stop_task or kill_shell) if you need a fresh one.`,
    ];
  });
  return lines.join('\n');
}
