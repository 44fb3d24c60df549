import { spellings, type OptionSpec, type ProgramSpec } from './option-parser.js';
import {
  DIRECT_RUNNERS,
  MULTIPLEXERS,
  NEVER_WIDENED,
  PROGRAMS,
  PYTHON_MODULES,
  RUNNERS,
  type Multiplexer,
} from './programs.js';

/** README's part on what program grants cover, written from the tables themselves (one source). */
export const TABLES_BEGIN = '<!-- gate-tables:begin (written by `npm run docs:gate`; do not edit by hand) -->';
export const TABLES_END = '<!-- gate-tables:end -->';

export function gateTablesMarkdown(): string {
  const lines: string[] = [];
  lines.push('**Never granted program-wide** (only exactly, or asked each time), by what they can do:', '');
  for (const [capability, programs] of Object.entries(NEVER_WIDENED))
    lines.push(`- ${capability}: ${programs.map(code).join(', ')}`);
  lines.push('', '**Runners** keep what they run in the grant:');
  const runners = Object.entries(RUNNERS).flatMap(([program, commands]) =>
    Object.entries(commands).map(([command, kind]) =>
      code(`${program} ${command} <${kind === 'script' ? 'script' : 'program'}>`),
    ),
  );
  lines.push(
    `${[...runners, ...[...DIRECT_RUNNERS].map((program) => code(`${program} <program>`)), code('python -m <module>')].join(', ')}. ` +
      "What follows a script is handed to it: operands only. What follows a program is read with that program's table.",
  );
  lines.push(
    '',
    '**Options known to be safe**, by program. An option not listed asks; a program not listed takes operands only.',
    '',
  );
  for (const [program, spec] of Object.entries(PROGRAMS)) lines.push(...programBlock(program, spec));
  for (const [module, spec] of Object.entries(PYTHON_MODULES))
    if (spec.options.length > 0 || spec.custom) lines.push(...programBlock(`python -m ${module}`, spec));
  for (const [program, multiplexer] of Object.entries(MULTIPLEXERS))
    lines.push(...multiplexerBlock(program, multiplexer));
  return lines.join('\n');
}

function programBlock(program: string, spec: ProgramSpec): string[] {
  return [
    `<details><summary>${html(program)}${spec.summary ? `: ${spec.summary}` : ''}</summary>`,
    '',
    optionList(spec),
    '',
    '</details>',
  ];
}

function multiplexerBlock(program: string, multiplexer: Multiplexer): string[] {
  const listed = Object.entries(multiplexer.subcommands);
  const never = Object.entries(multiplexer.never);
  if (listed.length === 0 && never.length === 0 && !multiplexer.others) return [];
  const lines = [
    `<details><summary>${html(program)}${multiplexer.summary ? `: ${multiplexer.summary}` : ''}</summary>`,
    '',
  ];
  // Subcommands sharing one table are listed together.
  const byTable = new Map<ProgramSpec, string[]>();
  for (const [command, spec] of listed) byTable.set(spec, [...(byTable.get(spec) ?? []), command]);
  for (const [spec, commands] of byTable)
    lines.push(`- ${commands.map((command) => code(`${program} ${command}`)).join(', ')}: ${optionList(spec)}`);
  if (multiplexer.others) lines.push(`- ${code(`${program} <other>`)}: ${optionList(multiplexer.others)}`);
  if (never.length > 0)
    lines.push(
      `- never granted: ${never.map(([command, why]) => `${code(`${program} ${command}`)} (${why})`).join('; ')}`,
    );
  lines.push('', '</details>');
  return lines;
}

function optionList(spec: ProgramSpec): string {
  if (spec.custom) return spec.summary ?? 'read by its own rules';
  const options = spec.options.map(optionText);
  const extra = [
    spec.numberOption ? '`-NUM`' : null,
    spec.afterDoubleDash === 'operands'
      ? '`--` then operands'
      : spec.afterDoubleDash === 'handed-on'
        ? '`--` then operands for what it runs'
        : null,
  ].filter(Boolean);
  const all = [...options, ...extra];
  return all.length > 0 ? all.join(' ') : 'operands only';
}

function optionText(option: OptionSpec): string {
  const flag = spellings(option);
  const value =
    option.value === 'required' ? ' V' : option.value === 'optional' ? '[=V]' : option.value === 2 ? ' A B' : '';
  return `${code(`${flag}${value}`)}${option.check ? ` (${option.check.note})` : ''}`;
}

/** Inside HTML (a summary line) Markdown's backticks do not apply. */
function html(text: string): string {
  return `<code>${text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</code>`;
}

function code(text: string): string {
  return `\`${text}\``;
}
