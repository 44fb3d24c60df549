/** The composer's slash commands (issue #16: /loop is the first). */
export interface SlashCommand {
  name: string;
  /** What follows the name, as a hint. */
  usage: string;
  detail: string;
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  {
    name: '/loop',
    usage: '[interval] [task]',
    detail:
      'Run a task now and again: “/loop 5m check the deploy”, “/loop check it every 2h”; alone, the agent picks its own pace',
  },
];

/** The commands the draft could be starting (a slash, then letters, no space yet). */
export function slashMatches(text: string): readonly SlashCommand[] {
  if (!/^\/[a-z]*$/i.test(text)) return [];
  return SLASH_COMMANDS.filter((command) => command.name.startsWith(text.toLowerCase()));
}

/** A `/loop` line: what follows the word (empty for a bare loop), or null when it is not one. */
export function loopArgs(text: string): string | null {
  const match = /^\/loop(?:\s+([\s\S]*))?$/.exec(text.trim());
  return match ? (match[1] ?? '').trim() : null;
}
