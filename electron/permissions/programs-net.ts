import { options, type ProgramSpec, type ValueCheck } from './option-parser.js';

// The gate refuses `@`, `%`, `{` and `}` anywhere in a command before these tables are read
// (gate.ts SHELL_METACHARACTERS); the checks below still state curl's own rules, so they hold alone.

/** Values that name the terminal, never a file. */
const toTerminal: ValueCheck = { allows: (value) => value === '-', note: 'only -, the terminal' };
/** A curl value beginning with @ reads a file (and sends it). */
const noFile: ValueCheck = { allows: (value) => !value.startsWith('@'), note: 'not @file' };
/** --data-urlencode reads a file with `@file` or `name@file`. */
const noFileAnywhere: ValueCheck = { allows: (value) => !value.includes('@'), note: 'without @' };
/** A cookie given as name=value; a bare word is a cookie file to read. */
const literalCookie: ValueCheck = { allows: (value) => value.includes('='), note: 'name=value, not a cookie file' };
/** --write-out may read its format from a file (@file) or write one (%output{file}). */
const safeWriteOut: ValueCheck = {
  allows: (value) => !value.startsWith('@') && !/%output\{/i.test(value),
  note: 'not @file or %output{…}',
};

/** A URL operand: http, https, ftp or ftps, or a host without a scheme; never file://, dict://, gopher:// and the like. */
function webOnly(words: readonly string[]): string | null {
  const other = words.find((word) => /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(word) && !/^(https?|ftps?):\/\//i.test(word));
  return other ? `${other} uses a scheme other than http, https or ftp` : null;
}

export const curl: ProgramSpec = {
  positionals: webOnly,
  summary:
    'requests and reading responses; -o, -D and --output only as - (the terminal); no upload of files, no config files, no trace or cookie-jar files',
  options: options(
    `
    -s -S -f -L -I -i -v -k -G -4 -6 -N -Z -q -j -# -X= -A= -e= -u= -m= -x= -r= -z= -U=
    -o|--output= -D|--dump-header= -H|--header= -d|--data= -b|--cookie= -w|--write-out=
    --silent --show-error --fail --fail-with-body --fail-early --location --location-trusted --head --include --verbose
    --insecure --get --ipv4 --ipv6 --no-buffer --parallel --parallel-max= --progress-bar --no-progress-meter --compressed
    --request= --user-agent= --referer= --user= --max-time= --connect-timeout= --retry= --retry-delay=
    --retry-max-time= --retry-all-errors --retry-connrefused --max-redirs= --data-ascii= --data-binary= --data-raw=
    --data-urlencode= --json= --proxy= --proxy-user= --noproxy= --range= --time-cond= --url=
    --http1.0 --http1.1 --http2 --http2-prior-knowledge --http3 --tlsv1.2 --tlsv1.3 --ssl-reqd
    --resolve= --connect-to= --digest --basic --anyauth --negotiate --ntlm --oauth2-bearer= --junk-session-cookies
    --path-as-is --globoff --url-query= --variable= --expect100-timeout= --keepalive-time= --no-keepalive --raw --tr-encoding
    --max-filesize= --limit-rate= --speed-limit= --speed-time= --styled-output --no-styled-output`,
    {
      '-o': toTerminal,
      '-D': toTerminal,
      '-H': noFile,
      '-d': noFile,
      '--data-ascii': noFile,
      '--data-binary': noFile,
      '--data-urlencode': noFileAnywhere,
      '--json': noFile,
      '-b': literalCookie,
      '-w': safeWriteOut,
      '--variable': noFileAnywhere,
      '--url-query': noFileAnywhere,
      '--url': { allows: (value) => webOnly([value]) === null, note: 'http, https or ftp' },
    },
  ),
};

export const wget: ProgramSpec = {
  positionals: webOnly,
  summary:
    'downloads into the working folder, or -O - to the terminal; not -e (runs wgetrc commands), -o/-a/-P (write elsewhere), -r',
  options: options(
    `
    -q -v -S -c -N -4 -6 -n= -O|--output-document= -T= -t= -U= -w= -i=
    --quiet --verbose --no-verbose --server-response --spider --timeout= --tries= --user-agent=
    --header= --no-check-certificate --continue --timestamping --max-redirect= --inet4-only --inet6-only --user=
    --password= --post-data= --method= --body-data= --content-on-error --wait= --limit-rate= --no-cache --no-cookies
    --compression= --input-file= --no-clobber --progress= --show-progress --content-disposition --trust-server-names`,
    // -nv, -nc, -nd, -nH: less output, no clobbering, no directories.
    { '-O': toTerminal, '-n': { allows: (value) => /^[vcdH]$/.test(value), note: 'v, c, d or H' } },
  ),
};
