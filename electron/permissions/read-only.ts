import { evaluateCommand, type GateDecision, type GatePolicy } from './gate.js';

/**
 * What plan mode lets run without asking: programs and git subcommands whose whole purpose is to
 * read, each judged by the same option tables as the allowlist (so `sed -i`, `find -delete`,
 * `rg --pre` and `git diff --output` still ask). Left out on purpose, though they have tables:
 * anything that writes with an operand (`git branch NAME`, `git tag NAME`, `git stash`, `git reflog
 * --expire`), anything that reaches the network (`curl`, `wget`, `git fetch`, `git remote show`),
 * every build tool, runner and package manager (a test suite can write anything), and jq (its `env`
 * prints the person's environment, secrets and all).
 */
export const READ_ONLY_ENTRIES: readonly string[] = [
  'pwd',
  'ls',
  'cat',
  'head',
  'tail',
  'wc',
  'diff',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'find',
  'sed',
  ...[
    'status',
    'log',
    'show',
    'diff',
    'blame',
    'grep',
    'shortlog',
    'describe',
    'rev-parse',
    'rev-list',
    'ls-files',
    'ls-tree',
    'cat-file',
    'merge-base',
    'for-each-ref',
    'show-ref',
    'name-rev',
    'cherry',
    'count-objects',
    'check-ignore',
    'version',
  ].map((subcommand) => `git ${subcommand}`),
];

/**
 * Plan mode's decision: allowed without asking only when the command is read-only by the tables
 * above, run inside the working folder on paths inside it. The person's grants and the operator's
 * allowlist do not apply (they were given for doing, not planning); everything else asks.
 */
export function evaluateReadOnly(
  command: string,
  policy: Pick<GatePolicy, 'workspace' | 'shell'>,
  cwd?: string,
): GateDecision {
  const decision = evaluateCommand(
    command,
    { allowlist: READ_ONLY_ENTRIES, exactGrants: [], programGrants: [], entryName: 'read-only rule', ...policy },
    cwd,
  );
  if (decision.decision === 'allow') return { decision: 'allow', reason: `plan mode, ${decision.reason}` };
  return {
    decision: 'ask',
    reason: `plan mode: only read-only commands run without asking, and grants do not apply (${decision.reason})`,
  };
}
