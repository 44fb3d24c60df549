import { options, type ProgramSpec } from './option-parser.js';

/** A program whose first argument selects what happens: a table per subcommand. */
export interface Multiplexer {
  summary?: string;
  subcommands: Readonly<Record<string, ProgramSpec>>;
  /** Subcommands that run programs, or change what later commands run: never granted, always asked. */
  never: Readonly<Record<string, string>>;
  /** Other names of a subcommand (`npm t` is `npm test`). */
  aliases?: Readonly<Record<string, string>>;
  /** The table for a subcommand not listed (make's targets, yarn's scripts); without one, operands only. */
  others?: ProgramSpec;
}

const spec = (text: string, extra: Partial<ProgramSpec> = {}): ProgramSpec => ({
  options: options(text),
  afterDoubleDash: 'operands',
  ...extra,
});

/** Operands whose first word must be one of these read-only verbs (or none at all). */
const firstOperandIn =
  (verbs: readonly string[], allowNone = true) =>
  (words: readonly string[]): string | null => {
    if (words.length === 0) return allowNone ? null : 'a subcommand is needed';
    return verbs.includes(words[0]!) ? null : `${words[0]} is not one of ${verbs.join(', ')}`;
  };

/** A transport that runs a command (`ext::sh -c …`, `fd::`) or a path outside, instead of a remote. */
function noCommandTransport(words: readonly string[]): string | null {
  const transport = words.find((word) => word.includes('::'));
  return transport ? `${transport} names a git transport that can run commands` : null;
}

/** Pushing to a URL or a path sends the repository anywhere; a configured remote's name is what a push grant covers. */
function remoteNamesOnly(words: readonly string[]): string | null {
  const target = words[0];
  if (target !== undefined && /[:/\\]/.test(target)) return `${target} is not the name of a configured remote`;
  return noCommandTransport(words);
}

// Shared by log, show and diff. Not --ext-diff or --textconv (they run configured programs), nor --output (writes a file).
const DIFF_OUTPUT = `
  -p -u -s -U= -w -b -R -z -W -M? -C? -B?
  --patch --no-patch --unified= --raw --patch-with-raw --stat? --compact-summary --numstat --shortstat --dirstat? --summary
  --name-only --name-status --submodule? --color? --no-color --color-moved? --word-diff? --word-diff-regex= --color-words?
  --no-renames --check --full-index --binary --abbrev? --find-renames? --find-copies? --break-rewrites? --irreversible-delete
  --diff-filter= --diff-algorithm= --histogram --patience --minimal --anchored= -S= -G= --pickaxe-all --pickaxe-regex -O=
  --relative? --no-relative --text -a --ignore-cr-at-eol --ignore-space-at-eol --ignore-space-change --ignore-all-space
  --ignore-blank-lines --ignore-matching-lines= --inter-hunk-context= --function-context --exit-code --quiet --no-prefix
  --src-prefix= --dst-prefix= --line-prefix= --ita-invisible-in-index --ita-visible-in-index --no-ext-diff --no-textconv`;

const LOG_SELECTION = `
  -n= -i -E -F -P -L= --max-count= --skip= --since= --after= --until= --before= --since-as-filter= --author= --committer=
  --grep= --all-match --invert-grep --regexp-ignore-case --basic-regexp --extended-regexp --fixed-strings --perl-regexp
  --merges --no-merges --min-parents= --max-parents= --first-parent --exclude-first-parent-only --not --all --branches?
  --tags? --remotes? --glob= --exclude= --reflog --alternate-refs --single-worktree --ignore-missing --bisect --walk-reflogs
  -g --merge --boundary --cherry-pick --cherry-mark --left-only --right-only --cherry --left-right --follow --full-history
  --dense --sparse --simplify-merges --ancestry-path? --show-pulls --simplify-by-decoration --topo-order --date-order
  --author-date-order --reverse --no-walk? --do-walk --oneline --pretty? --format= --abbrev-commit --no-abbrev-commit
  --decorate? --no-decorate --decorate-refs= --decorate-refs-exclude= --source --mailmap --no-mailmap --use-mailmap
  --date= --relative-date --parents --children --graph --show-linear-break? --log-size --notes? --no-notes --encoding=
  --expand-tabs? --no-expand-tabs --clear-decorations --count --cc --dd --remerge-diff --diff-merges= --no-diff-merges
  --combined-all-paths -m -c -t --root --no-standard-notes --show-notes?`;

export const git: Multiplexer = {
  summary: 'by subcommand; -c, -C, --git-dir, --exec-path, -p before the subcommand always ask',
  subcommands: {
    status:
      spec(`-s -b -v -z -u? --short --branch --porcelain? --long --verbose --untracked-files? --ignored? --ignore-submodules?
      --column? --no-column --ahead-behind --no-ahead-behind --renames --no-renames --find-renames? --show-stash`),
    log: spec(`${LOG_SELECTION} ${DIFF_OUTPUT}`, { numberOption: true }),
    show: spec(`${DIFF_OUTPUT} --oneline --pretty? --format= --abbrev-commit --no-abbrev-commit --date= --decorate? --no-decorate
      --expand-tabs? --no-expand-tabs --notes? --no-notes --first-parent -m -c -t --cc --remerge-diff --diff-merges=`),
    diff: spec(`${DIFF_OUTPUT} --cached --staged --merge-base --no-index`),
    branch:
      spec(`-a -r -v -l -q --all --remotes --verbose --list --merged? --no-merged? --contains? --no-contains? --show-current
      --sort= --format= --points-at= --color? --no-color --column? --no-column --abbrev= --no-abbrev --ignore-case --quiet`),
    'rev-parse':
      spec(`-q --verify --quiet --short? --abbrev-ref? --symbolic --symbolic-full-name --show-toplevel --show-prefix
      --show-cdup --git-dir --git-common-dir --absolute-git-dir --is-inside-work-tree --is-inside-git-dir --is-bare-repository
      --is-shallow-repository --all --branches? --tags? --remotes? --glob= --default= --revs-only --no-revs --flags --no-flags
      --since= --until= --sq-quote --show-object-format? --show-superproject-working-tree --path-format=`),
    'ls-files':
      spec(`-c -d -m -o -i -s -u -k -z -t -v -f -x= -X= --cached --deleted --modified --others --ignored --stage
      --unmerged --killed --directory --no-empty-directory --eol --exclude= --exclude-from= --exclude-per-directory=
      --exclude-standard --error-unmatch --with-tree= --full-name --recurse-submodules --abbrev? --debug --deduplicate --format=`),
    'ls-tree': spec(
      `-d -r -t -l -z --long --name-only --name-status --object-only --full-name --full-tree --abbrev? --format=`,
    ),
    blame:
      spec(`-b -l -t -s -e -w -f -n -p -c -L= -M? -C? -S= --root --show-stats --score-debug --show-name --show-number
      --show-email --porcelain --line-porcelain --incremental --date= --progress --no-progress --reverse= --first-parent
      --encoding= --contents= --ignore-rev= --ignore-revs-file= --color-lines --color-by-age --minimal --abbrev=`),
    shortlog: spec(
      `-s -n -e -c -w? --summary --numbered --email --committer --group= --format= --all --no-merges --since= --until=`,
    ),
    describe:
      spec(`--tags --all --always --long --abbrev= --dirty? --broken? --exact-match --match= --exclude= --contains
      --first-parent --candidates= --debug`),
    tag: spec(`-l -n? -v --list --sort= --contains? --no-contains? --points-at= --merged? --no-merged? --format= --column?
      --no-column --color? --ignore-case`),
    remote: spec(`-v --verbose`, { positionals: firstOperandIn(['show', 'get-url']) }),
    fetch: spec(
      `-p -P -t -n -q -v -f -j= --all --prune --prune-tags --tags --no-tags --quiet --verbose --depth= --deepen=
      --shallow-since= --shallow-exclude= --unshallow --update-shallow --dry-run --force --multiple --jobs= --no-recurse-submodules
      --recurse-submodules? --keep --refetch --progress --no-progress --set-upstream --write-fetch-head --no-write-fetch-head
      --atomic --append -a --negotiation-tip= --filter= --porcelain --show-forced-updates --no-show-forced-updates`,
      { positionals: noCommandTransport },
    ),
    pull: spec(
      `-q -v -n -r? --quiet --verbose --ff --no-ff --ff-only --rebase? --no-rebase --autostash --no-autostash
      --stat --no-stat --squash --no-squash --commit --no-commit --edit --no-edit --all --prune --tags --no-tags --depth=
      --unshallow --progress --no-progress --no-verify --signoff --no-signoff`,
      { positionals: noCommandTransport },
    ),
    push: spec(
      `-u -f -n -q -v -d --set-upstream --force --force-with-lease? --force-if-includes --no-force-if-includes --tags
      --follow-tags --no-follow-tags --delete --dry-run --quiet --verbose --all --branches --mirror --prune --atomic --no-atomic
      --no-verify --porcelain --progress --no-progress --ipv4 --ipv6 -4 -6`,
      { positionals: remoteNamesOnly },
    ),
    add: spec(`-A -u -n -v -f -N --all --update --dry-run --verbose --force --intent-to-add --ignore-errors --ignore-missing
      --renormalize --refresh --no-all --no-ignore-removal --ignore-removal --sparse --chmod= --pathspec-from-file= --pathspec-file-nul`),
    commit: spec(`-a -m= -F= -q -v -n -s -o -i -C= -c= --all --message= --file= --quiet --verbose --no-verify --signoff
      --no-signoff --only --include --amend --no-edit --allow-empty --allow-empty-message --author= --date= --reset-author
      --fixup= --squash= --reuse-message= --reedit-message= --dry-run --short --branch --porcelain --long -z --null
      --cleanup= --untracked-files? --no-status --status --trailer= --pathspec-from-file= --pathspec-file-nul`),
    checkout: spec(`-b= -B= -q -f -t -m --quiet --force --track? --no-track --detach --orphan= --ours --theirs --merge
      --progress --no-progress --guess --no-guess --overlay --no-overlay --ignore-other-worktrees --recurse-submodules?
      --no-recurse-submodules --pathspec-from-file= --pathspec-file-nul`),
    switch: spec(`-c= -C= -d -f -q -t -m --create= --force-create= --detach --guess --no-guess --force --discard-changes
      --quiet --merge --track? --no-track --orphan= --progress --no-progress --ignore-other-worktrees --recurse-submodules?
      --no-recurse-submodules`),
    restore: spec(`-s= -S -W -q --source= --staged --worktree --quiet --ours --theirs --merge --overlay --no-overlay
      --ignore-unmerged --ignore-skip-worktree-bits --progress --no-progress --recurse-submodules? --no-recurse-submodules
      --pathspec-from-file= --pathspec-file-nul`),
    reset: spec(`-q -N --soft --mixed --hard --merge --keep --quiet --no-refresh --refresh --recurse-submodules?
      --no-recurse-submodules --pathspec-from-file= --pathspec-file-nul`),
    merge:
      spec(`-m= -F= -n -q -v --no-ff --ff --ff-only --message= --file= --no-edit --edit --squash --no-squash --commit
      --no-commit --abort --continue --quit --quiet --verbose --stat --no-stat --summary --no-summary --log? --no-log
      --allow-unrelated-histories --autostash --no-autostash --no-verify --signoff --no-signoff --progress --no-progress`),
    rebase: spec(`-q -v -n -f --onto= --keep-base --continue --abort --skip --quit --quiet --verbose --stat --no-stat
      --autostash --no-autostash --autosquash --no-autosquash --keep-empty --no-keep-empty --empty= --root --update-refs
      --no-update-refs --force-rebase --no-ff --fork-point --no-fork-point --reapply-cherry-picks --no-reapply-cherry-picks
      --committer-date-is-author-date --ignore-date --reset-author-date --signoff --no-verify --verify --rebase-merges?
      --no-rebase-merges --apply --merge -m`),
    stash: spec(
      `-u -k -q -a -p -m= --patch --include-untracked --keep-index --no-keep-index --quiet --all --message= --index --staged
      --pathspec-from-file= --pathspec-file-nul`,
      { positionals: firstOperandIn(['list', 'show', 'push', 'save']) },
    ),
    grep: spec(
      `-i -I -v -w -n -l -L -c -h -H -e= -f= -E -F -G -P -r -z -o -q -W -p -A= -B= -C= -m= --cached --untracked
      --no-index --exclude-standard --no-exclude-standard --recurse-submodules --ignore-case --invert-match --word-regexp
      --line-number --column --files-with-matches --name-only --files-without-match --count --no-filename --full-name
      --extended-regexp --fixed-strings --basic-regexp --perl-regexp --null --only-matching --quiet --break --heading
      --show-function --function-context --max-depth= --recursive --no-recursive --color? --no-color --all-match --and --or
      --not --threads= --max-count= --after-context= --before-context= --context=`,
      { numberOption: true },
    ),
    'cat-file': spec(`-t -s -e -p --batch? --batch-check? --batch-all-objects --follow-symlinks --unordered`),
    clone: spec(
      `-b= -q -v -n --branch= --depth= --shallow-since= --shallow-exclude= --single-branch --no-single-branch
      --no-tags --quiet --verbose --progress --no-checkout --bare --mirror --origin= -o= --filter= --also-filter-submodules
      --recurse-submodules? --shallow-submodules --no-shallow-submodules --remote-submodules --no-remote-submodules --sparse
      --reject-shallow --no-reject-shallow --bundle-uri=`,
      { positionals: noCommandTransport },
    ),
    init: spec(`-q -b= --quiet --bare --initial-branch= --object-format= --shared?`),
    worktree: spec(`-v --verbose --porcelain -z --expire=`, { positionals: firstOperandIn(['list'], false) }),
    reflog: spec(`-n= --date= --format= --oneline --all --expire= --dry-run`, { numberOption: true }),
    'merge-base': spec(`-a --all --octopus --independent --is-ancestor --fork-point`),
    'rev-list': spec(`${LOG_SELECTION} --objects --objects-edge --quiet --left-right --count --disk-usage?`, {
      numberOption: true,
    }),
    'for-each-ref':
      spec(`--count= --sort= --format= --color? --points-at= --merged? --no-merged? --contains? --no-contains?
      --ignore-case --omit-empty --shell --perl --python --tcl --exclude=`),
    'show-ref': spec(
      `-d -s -q --head --heads --branches --tags --verify --dereference --hash? --abbrev? --quiet --exists --exclude-existing?`,
    ),
    version: spec(`--build-options`),
    cherry: spec(`-v --abbrev?`),
    'name-rev': spec(`--tags --refs= --exclude= --all --annotate-stdin --name-only --no-undefined --always`),
    'count-objects': spec(`-v -H --verbose --human-readable`),
    'check-ignore': spec(`-q -v -n -z --quiet --verbose --non-matching --no-index --stdin`),
  },
  never: {
    config: 'git config can plant hooks, pagers and filters that later, granted commands would run',
    submodule: 'git submodule foreach runs commands',
    bisect: 'git bisect run runs commands',
    difftool: 'git difftool runs a diff program',
    mergetool: 'git mergetool runs a merge program',
    'filter-branch': 'git filter-branch runs commands',
    'filter-repo': 'git filter-repo runs code',
    archive: 'git archive --remote and --exec run programs',
    daemon: 'git daemon serves the repository',
    instaweb: 'git instaweb starts a web server',
    'send-email': 'git send-email sends mail and runs hooks',
    credential: 'git credential reads and writes secrets',
    hook: 'git hook runs hooks',
    'upload-pack': 'runs on behalf of a remote',
    'receive-pack': 'runs on behalf of a remote',
    'upload-archive': 'runs on behalf of a remote',
    p4: 'runs Perforce',
    svn: 'runs Subversion',
    cvsimport: 'runs CVS',
    cvsserver: 'serves CVS',
  },
};
