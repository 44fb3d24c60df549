/**
 * What a unix task's shell does before its command (TaskContainer.wrap): entering the task's
 * cgroup and, on a terminal, waiting at its gate, said as a prelude to the shell's own script or
 * to one `sh` stage.
 */

/** How a task's shell is to be started (TaskContainer.wrap). */
export interface LaunchOptions {
  /** The shell runs on a pseudo-terminal: its LF → CR LF output translation goes off before the command runs. */
  terminal?: boolean;
  /**
   * The shell does the stage's work itself, ahead of its command (see foldedCommand): only for a
   * shell known to run nothing of the person's before its script and to keep its process tree
   * as with `-c` alone. Default false: an `sh` stage does it.
   */
  fold?: boolean;
  /**
   * A terminal's named pipe (terminal-gate.ts): the shell waits on it before its command while
   * Drover turns the terminal raw itself, so no `stty` is forked. Absent: `stty -onlcr`.
   */
  gate?: string;
}

/**
 * The work done before a unix task's command, by the shell itself where the caller says it can
 * (`fold`), else by one `sh` stage that then execs the shell under the same pid:
 * - entering the task's cgroup: the pid goes into cgroup.procs, so the command and everything
 *   it starts are born inside;
 * - on a terminal, turning off its LF → CR LF output translation, so the log holds exactly the
 *   bytes the program wrote: by waiting at the task's gate (Drover changes the terminal, then
 *   writes an empty line; a line saying `stty` asks the shell to do it itself), or where there is
 *   no gate by `stty`.
 * Each path comes in as `$1` and is shifted away once used. Nothing is interpolated into the
 * script; the paths and the command are arguments.
 */
const ENTER_CGROUP = 'echo $$ > "$1" || { echo "drover: could not enter the task\'s cgroup" >&2; exit 125; }; shift';
const AWAIT_GATE =
  'read -r drover_gate < "$1"; shift; [ -z "$drover_gate" ] || stty -onlcr 2>/dev/null; unset drover_gate';
const STTY_RAW_OUTPUT = 'stty -onlcr 2>/dev/null';

/**
 * With `fold`, the work above goes before the command in the shell's own `-c` script, on a line
 * of its own: the command is then parsed as the script's own top-level command, as with `-c`
 * alone (a syntax error in it is reported after the work ran, and bash still execs its last
 * command in place of itself), `$0` stays the shell's own path and `$@` is empty once the paths
 * are shifted away. What differs: the command's lines are numbered from 2 (in bash's messages
 * and `$LINENO`), and `$BASH_EXECUTION_STRING` holds the work too. The command's text is appended as it is; nothing of it is read or changed.
 * Which shells may fold is the caller's to know (ShellLauncher: bash 5.1 or newer, run with
 * nothing of the person's before the script).
 */
function foldedCommand(args: readonly string[], fold: boolean): string | null {
  if (!fold || args.length !== 2 || args[0] !== '-c') return null;
  return args[1]!;
}

/** `procs`: the task's cgroup.procs, null without a cgroup. */
export function unixLaunch(
  procs: string | null,
  file: string,
  args: readonly string[],
  options: LaunchOptions,
): { file: string; args: string[] } {
  const work: string[] = [];
  const paths: string[] = [];
  if (procs !== null) {
    work.push(ENTER_CGROUP);
    paths.push(procs);
  }
  if (options.terminal !== false) {
    if (options.gate) {
      work.push(AWAIT_GATE);
      paths.push(options.gate);
    } else work.push(STTY_RAW_OUTPUT);
  }
  // On pipes without a cgroup there is nothing to do first: the shell is started as it is.
  if (work.length === 0) return { file, args: [...args] };
  const prelude = work.join('; ');
  const command = foldedCommand(args, options.fold === true);
  if (command !== null) return { file, args: ['-c', `${prelude}\n${command}`, file, ...paths] };
  return { file: '/bin/sh', args: ['-c', `${prelude}; exec "$@"`, 'drover-task', ...paths, file, ...args] };
}
