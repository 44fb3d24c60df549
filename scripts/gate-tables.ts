// `npm run docs:gate`: writes README's part on what program grants cover from the gate's own tables.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gateTablesMarkdown, TABLES_BEGIN, TABLES_END } from '../electron/permissions/tables-doc.js';

const readme = join(import.meta.dirname, '..', 'README.md');
const text = readFileSync(readme, 'utf8');
const begin = text.indexOf(TABLES_BEGIN);
const end = text.indexOf(TABLES_END);
if (begin < 0 || end < begin) throw new Error(`README.md has no ${TABLES_BEGIN} … ${TABLES_END} block`);
writeFileSync(readme, `${text.slice(0, begin + TABLES_BEGIN.length)}\n${gateTablesMarkdown()}\n${text.slice(end)}`);
console.log('README.md: gate tables written');
