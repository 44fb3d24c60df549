// `node build/merge-mac-update-info.mjs latest-mac-x64.yml latest-mac-arm64.yml > latest-mac.yml`
//
// The release workflow builds macOS x64 and arm64 on two runners, and each writes a latest-mac.yml
// that lists only its own files. electron-updater reads one latest-mac.yml per release and picks
// the file for the Mac it runs on (arm64 in the name for Apple silicon, the others for Intel), so
// the release must carry one file listing both. The top-level path and sha512 (read only by very
// old updaters) stay those of the first file.
//
// Every string is written quoted. electron-updater reads the file with js-yaml, which takes a
// plain 2026-01-02T00:05:00.000Z for a Date (and other plain scalars for numbers or booleans),
// while the `yaml` package used here writes YAML 1.2 and leaves such strings plain.
import { readFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';

export function mergeMacUpdateInfo(texts) {
  const infos = texts.map((text) => parse(text));
  const [first] = infos;
  if (!first) throw new Error('No update description given.');
  for (const info of infos) {
    if (info.version !== first.version)
      throw new Error(`The update descriptions disagree on the version: ${first.version} and ${info.version}.`);
    if (!Array.isArray(info.files) || info.files.length === 0)
      throw new Error(`An update description for ${info.version} lists no files.`);
  }
  const files = [];
  const seen = new Set();
  for (const file of infos.flatMap((info) => info.files)) {
    if (seen.has(file.url)) throw new Error(`Two builds produced the same file name: ${file.url}.`);
    seen.add(file.url);
    files.push(file);
  }
  const releaseDate = infos
    .map((info) => info.releaseDate)
    .filter(Boolean)
    .sort()
    .at(-1);
  return stringify(
    { ...first, files, ...(releaseDate ? { releaseDate } : {}) },
    // lineWidth 0: sha512 values stay on one line each, as electron-builder writes them.
    { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN', lineWidth: 0 },
  );
}

if (process.argv[1] && import.meta.filename && process.argv[1].endsWith('merge-mac-update-info.mjs')) {
  const paths = process.argv.slice(2);
  if (paths.length < 2) {
    console.error('Give at least two latest-mac.yml files to merge.');
    process.exit(2);
  }
  process.stdout.write(mergeMacUpdateInfo(paths.map((path) => readFileSync(path, 'utf8'))));
}
