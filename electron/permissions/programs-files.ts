import { checkFindArguments } from './find-expression.js';
import { options, type ProgramSpec } from './option-parser.js';
import { unsafeSedScript } from './sed-script.js';

/**
 * Tables of options known to neither run code nor write outside what the person sees, for the
 * programs that read and search files. An option not listed asks.
 */

export const ls: ProgramSpec = {
  options: options(`
    -a -A -b -B -c -C -d -f -F -g -G -h -H -i -k -l -L -m -n -N -o -p -q -Q -r -R -s -S -t -u -U -v -x -X -Z -1 -w= -T= -I=
    --all --almost-all --escape --ignore-backups --directory --classify? --file-type --format= --full-time
    --group-directories-first --no-group --human-readable --si --dereference --dereference-command-line
    --dereference-command-line-symlink-to-dir --hide= --hyperlink? --indicator-style= --inode --ignore= --kibibytes --literal
    --numeric-uid-gid --hide-control-chars --show-control-chars --quote-name --quoting-style= --reverse --recursive --size
    --sort= --time= --time-style= --tabsize= --width= --context --color? --author --block-size= --zero`),
  afterDoubleDash: 'operands',
};

export const cat: ProgramSpec = {
  options: options(
    `-A -b -e -E -n -s -t -T -u -v --show-all --number-nonblank --show-ends --number --squeeze-blank --show-tabs --show-nonprinting`,
  ),
  afterDoubleDash: 'operands',
};

export const head: ProgramSpec = {
  options: options(`-n= -c= -q -v -z --lines= --bytes= --quiet --silent --verbose --zero-terminated`),
  numberOption: true,
  afterDoubleDash: 'operands',
};

export const tail: ProgramSpec = {
  options: options(
    `-n= -c= -f -F -q -v -s= -z --lines= --bytes= --follow? --retry --quiet --silent --verbose --sleep-interval= --pid= --zero-terminated`,
  ),
  numberOption: true,
  afterDoubleDash: 'operands',
};

export const wc: ProgramSpec = {
  options: options(`-c -m -l -w -L --bytes --chars --lines --words --max-line-length --files0-from= --total=`),
  afterDoubleDash: 'operands',
};

export const diff: ProgramSpec = {
  // Not -l/--paginate: it runs pr.
  options: options(`
    -q -s -c -C= -u -U= -e -n -y -W= -t -T -r -N -i -E -Z -b -w -B -I= -a -d -p -F= -x= -X= -S=
    --brief --report-identical-files --context? --unified? --ed --normal --rcs --side-by-side --width= --left-column
    --suppress-common-lines --expand-tabs --initial-tab --tabsize= --suppress-blank-empty --recursive --no-dereference
    --new-file --unidirectional-new-file --ignore-case --ignore-file-name-case --no-ignore-file-name-case
    --ignore-tab-expansion --ignore-trailing-space --ignore-space-change --ignore-all-space --ignore-blank-lines
    --ignore-matching-lines= --text --strip-trailing-cr --minimal --horizon-lines= --speed-large-files --color?
    --show-c-function --show-function-line= --label= --from-file= --to-file= --exclude= --exclude-from= --starting-file=
    --line-format= --old-line-format= --new-line-format= --unchanged-line-format= --old-group-format= --new-group-format=
    --changed-group-format= --unchanged-group-format= --palette=`),
  afterDoubleDash: 'operands',
};

export const grep: ProgramSpec = {
  options: options(`
    -E -F -G -P -e= -f= -i -y -v -w -x -c -L -l -m= -o -q -s -b -H -h -n -T -Z -z -A= -B= -C= -a -I -d= -D= -r -R -U
    --extended-regexp --fixed-strings --basic-regexp --perl-regexp --regexp= --file= --ignore-case --no-ignore-case
    --invert-match --word-regexp --line-regexp --count --color? --colour? --files-without-match --files-with-matches
    --max-count= --only-matching --quiet --silent --no-messages --byte-offset --with-filename --no-filename --label=
    --line-number --initial-tab --null --null-data --after-context= --before-context= --context= --text --binary-files=
    --devices= --directories= --recursive --dereference-recursive --include= --exclude= --exclude-from= --exclude-dir=
    --line-buffered --binary`),
  numberOption: true,
  afterDoubleDash: 'operands',
};

export const rg: ProgramSpec = {
  // Not --pre (runs a program on every file) nor -z/--search-zip (runs decompressors).
  options: options(`
    -e= -f= -g= -t= -T= -i -s -S -w -x -v -F -P -U -u -n -N -l -c -o -r= -A= -B= -C= -m= -d= -L -a -0 -q -H -h -j= -M= -E= -p -b
    --regexp= --file= --glob= --iglob= --type= --type-not= --ignore-case --case-sensitive --smart-case --word-regexp
    --line-regexp --invert-match --fixed-strings --pcre2 --multiline --multiline-dotall --unrestricted --line-number
    --no-line-number --files-with-matches --files-without-match --count --count-matches --only-matching --replace=
    --after-context= --before-context= --context= --max-count= --max-depth= --hidden --no-ignore --no-ignore-vcs
    --no-ignore-dot --no-ignore-global --no-ignore-parent --follow --files --json --vimgrep --heading --no-heading
    --color= --colors= --sort= --sortr= --column --no-column --trim --stats --text --null --quiet --with-filename
    --no-filename --threads= --max-columns= --max-columns-preview --max-filesize= --no-messages --glob-case-insensitive
    --pretty --passthru --encoding= --byte-offset --type-list --debug --no-config --one-file-system --search-zip-never`),
  afterDoubleDash: 'operands',
};

export const find: ProgramSpec = {
  summary: 'paths, then tests and print actions; not -exec, -execdir, -ok, -okdir, -delete, -fprint*, -fls',
  options: [],
  custom: checkFindArguments,
};

/** The scripts sed would run: every -e/--expression value, else its first operand. */
function sedScripts(words: readonly string[], values: ReadonlyMap<string, readonly string[]>): string | null {
  const given = values.get('--expression') ?? [];
  const scripts = given.length > 0 ? given : words.slice(0, 1);
  for (const script of scripts) {
    const problem = unsafeSedScript(script);
    if (problem) return problem;
  }
  return null;
}

export const sed: ProgramSpec = {
  summary: 'scripts of p d q n N P h H g G x = l y s/// (flags g p i m and numbers); not -i, -f, e, r, R, w, W',
  options: options(
    `-n -E -r -s -u -z -l= -e|--expression= --quiet --silent --regexp-extended --separate --unbuffered --null-data --posix --debug --sandbox --line-length=`,
  ),
  positionals: sedScripts,
  afterDoubleDash: 'operands',
};

export const jq: ProgramSpec = {
  options: options(`
    -r -j -a -c -n -e -s -S -C -M -R -L= -f=
    --raw-output --raw-output0 --join-output --ascii-output --compact-output --null-input --exit-status --slurp --sort-keys
    --color-output --monochrome-output --raw-input --tab --indent= --seq --stream --stream-errors --from-file=
    --arg=2 --argjson=2 --slurpfile=2 --rawfile=2 --args --jsonargs`),
  afterDoubleDash: 'operands',
};
