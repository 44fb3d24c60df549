import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AGENT_FILE_MAX_BYTES,
  BUILTIN_AGENTS,
  GENERAL_PURPOSE,
  isDefinitionProblem,
  loadAgentDefinitions,
  parseAgentDefinition,
  READING_TOOLS,
  RESEARCHER,
} from '../../electron/subagents/definitions.js';
import { AGENT_PROMPT_MAX_CHARS, AgentDefinitionSchema } from '../../shared/schemas/subagent.js';
import { tempDir } from '../helpers.js';

const KNOWN = ['run_command', 'read_task_output', 'list_tasks', 'agent'];
const KNOWN_LISTED = 'the known tools are run_command, read_task_output, list_tasks, agent';
const FILE = '/agents/x.md';
const SKIPPED = 'this file was skipped';

function parse(text: string, knownTools: readonly string[] = KNOWN) {
  return parseAgentDefinition(text, FILE, 'project', knownTools);
}

function definition(name: string, extra = '', body = `You are ${name}.`): string {
  return `---\nname: ${name}\ndescription: Does ${name} things.\n${extra}---\n${body}\n`;
}

/** A project folder and a user folder, each with the given files. */
function folders(project: Record<string, string>, user: Record<string, string> = {}) {
  const projectDir = tempDir();
  const userDir = tempDir();
  const projectAgents = join(projectDir, '.drover', 'agents');
  mkdirSync(projectAgents, { recursive: true });
  for (const [name, text] of Object.entries(project)) writeFileSync(join(projectAgents, name), text);
  for (const [name, text] of Object.entries(user)) writeFileSync(join(userDir, name), text);
  return { projectDir, userDir, projectAgents, knownTools: KNOWN };
}

/** A file's path in the project's agents folder. */
const at = (setup: { projectAgents: string }, name: string) => join(setup.projectAgents, name);

/** A problem as loadAgentDefinitions reports it. */
const issue = (file: string, field: string | null, message: unknown) => ({ file, field, message });
/** A problem in the file parse() reads. */
const problem = (field: string | null, message: unknown) => issue(FILE, field, message);

const names = (loaded: { agents: { name: string }[] }) => loaded.agents.map((agent) => agent.name);

describe('parseAgentDefinition: frontmatter', () => {
  it('reads every field and the trimmed body as the prompt', () => {
    const extra = 'tools: [run_command, agent]\nmodel: big-model\nbackground: true\n';
    const parsed = parse(definition('test-fixer', extra, '\n  Fix tests.\n\n'));
    expect(parsed).toEqual({
      name: 'test-fixer',
      description: 'Does test-fixer things.',
      tools: ['run_command', 'agent'],
      model: 'big-model',
      background: true,
      prompt: 'Fix tests.',
      source: 'project',
      file: FILE,
    });
    expect(AgentDefinitionSchema.safeParse(parsed).success).toBe(true);
  });

  it('omits the optional fields it was not given', () => {
    expect(parseAgentDefinition(definition('a'), '/u/a.md', 'user', KNOWN)).toEqual({
      name: 'a',
      description: 'Does a things.',
      prompt: 'You are a.',
      source: 'user',
      file: '/u/a.md',
    });
  });

  it('refuses a file without frontmatter, or with frontmatter never closed', () => {
    const needs = problem(null, expect.stringMatching(/^needs frontmatter between --- lines at the top/));
    expect(parse('You are a helper.')).toEqual(needs);
    expect(parse('\n---\nname: a\n---\nbody')).toEqual(needs);
    expect(parse('---\nname: a\ndescription: b\nbody')).toEqual(
      problem(null, 'the frontmatter opened by --- on line 1 is never closed by a --- line'),
    );
  });

  it('accepts CRLF line endings and a UTF-8 byte order mark', () => {
    const text = '\uFEFF---\r\nname: a\r\ndescription: Does a.\r\n---\r\nLine one.\r\nLine two.\r\n';
    expect(parse(text)).toMatchObject({ name: 'a', description: 'Does a.', prompt: 'Line one.\nLine two.' });
  });

  it('ends the frontmatter at the first --- line; later ones belong to the body', () => {
    expect(parse(definition('a', '', 'Before.\n---\nAfter.'))).toMatchObject({ prompt: 'Before.\n---\nAfter.' });
  });

  it('requires the frontmatter to be a mapping', () => {
    const message = 'the frontmatter must be a mapping of fields (name, description, tools, model, background)';
    for (const yaml of ['- a\n- b', '', 'just words', '42']) {
      expect(parse(`---\n${yaml}\n---\nbody`)).toEqual(problem(null, message));
    }
  });

  it('reports YAML syntax errors with the line of the file', () => {
    const message = expect.stringMatching(/^the frontmatter is not valid YAML \(line 3 of the file\): /);
    expect(parse('---\nname: a\ndescription: [b\n---\nbody')).toEqual(problem(null, message));
  });

  it('refuses duplicate keys', () => {
    const message = expect.stringMatching(/^the frontmatter is not valid YAML \(line 3 of the file\): Map keys must/);
    expect(parse('---\nname: a\nname: b\ndescription: c\n---\nbody')).toEqual(problem(null, message));
  });

  it('refuses any tag, custom or standard, and never runs one', () => {
    const described = (value: string) => parse(`---\nname: a\ndescription: ${value}\n---\nbody`);
    const unresolved = /^the frontmatter is not valid YAML \(line 3 of the file\): Unresolved tag/;
    expect(described('!!js/function "function () { return 1 }"')).toEqual(
      problem(null, expect.stringMatching(unresolved)),
    );
    expect(described('!foo bar')).toEqual(problem(null, expect.stringMatching(/Unresolved tag: !foo/)));
    expect(described('!!str a')).toEqual(
      problem(null, 'the frontmatter uses the tag tag:yaml.org,2002:str; tags are not allowed'),
    );
    expect(described('!!binary aGVsbG8=')).toEqual(
      problem(null, expect.stringMatching(/binary; tags are not allowed$/)),
    );
  });

  it('refuses anchors and aliases (no alias bombs), including merge keys', () => {
    const bomb = 'a: &a [x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b]';
    const refused = problem(null, expect.stringMatching(/anchors and aliases are not allowed$/));
    for (const yaml of [bomb, 'name: &n a\ndescription: *n', 'base: &b {name: a}\n<<: *b\ndescription: d']) {
      expect(parse(`---\n${yaml}\n---\nbody`)).toEqual(refused);
    }
  });

  it('refuses keys that are not plain scalars', () => {
    expect(parse('---\n? [a, b]\n: c\nname: a\n---\nbody')).toEqual(
      problem(null, 'the frontmatter has a key that is not a plain word'),
    );
  });

  it('reads YAML 1.2: yes is a string, so background: yes names the field', () => {
    expect(parse(definition('a', 'background: yes\n'))).toMatchObject({ field: 'background' });
  });
});

describe('parseAgentDefinition: fields', () => {
  it('names the first failing field with the schema’s message', () => {
    expect(parse('---\nname: Bad Name\ndescription: d\n---\nbody')).toEqual(
      problem('name', 'must be lower-case letters and digits joined by hyphens (like test-fixer)'),
    );
    expect(parse('---\nname: a\ndescription: "  "\n---\nbody')).toEqual(
      problem('description', 'must say what the agent is for'),
    );
    expect(parse('---\ndescription: d\n---\nbody')).toMatchObject({ field: 'name' });
    expect(parse(definition('a', 'tools: [run_command, 7, ""]\n'))).toMatchObject({ field: 'tools.1' });
    expect(parse(definition('a', 'model: 12\n'))).toMatchObject({ field: 'model' });
  });

  it('names an unknown field', () => {
    expect(parse(definition('a', 'color: blue\n'))).toEqual(
      problem('color', 'unknown field "color"; the fields are name, description, tools, model, background'),
    );
    expect(parse(definition('a', '__proto__: {x: 1}\n'))).toMatchObject({ field: '__proto__' });
  });

  it('names an unknown tool by its index and lists the known tools; names match exactly', () => {
    expect(parse(definition('a', 'tools: [run_command, Run_Command]\n'))).toEqual(
      problem('tools.1', `unknown tool "Run_Command"; ${KNOWN_LISTED}`),
    );
    expect(parse(definition('a', 'tools: [" run_command"]\n'))).toMatchObject({ field: 'tools.0' });
    expect(parse(definition('a', 'tools: [list_tasks]\n'), [])).toMatchObject({ field: 'tools.0' });
  });

  it('collapses duplicate tools, keeping the first order', () => {
    expect(parse(definition('a', 'tools: [list_tasks, run_command, list_tasks, run_command]\n'))).toMatchObject({
      tools: ['list_tasks', 'run_command'],
    });
  });

  it('keeps an empty tool list (an agent with no tools)', () => {
    expect(parse(definition('a', 'tools: []\n'))).toMatchObject({ tools: [] });
  });

  it('refuses an empty body', () => {
    expect(parse(definition('a', '', '  \n\n  '))).toEqual(
      problem('body', 'the body is empty; write the system prompt after the frontmatter'),
    );
  });

  it('refuses a body over the limit, counted after trimming', () => {
    const max = AGENT_PROMPT_MAX_CHARS;
    expect(parse(definition('a', '', `\n\n${'x'.repeat(max)}\n\n`))).toMatchObject({ prompt: 'x'.repeat(max) });
    expect(parse(definition('a', '', 'x'.repeat(max + 1)))).toEqual(
      problem('body', `the body is ${max + 1} characters; a system prompt may be at most ${max}`),
    );
  });

  it('never throws on odd input', () => {
    for (const text of ['', '---', '---\n---', '\u0000\u0001', '---\n\t\tname: a\n---\nb', '---\n[[[{{{\n---\n']) {
      expect(() => parse(text)).not.toThrow();
      expect(isDefinitionProblem(parse(text))).toBe(true);
    }
  });
});

describe('the built-in agents', () => {
  it('are the general-purpose agent and the read-only researcher, valid by the schema', () => {
    expect(BUILTIN_AGENTS.map((agent) => agent.name)).toEqual([GENERAL_PURPOSE, RESEARCHER]);
    for (const agent of BUILTIN_AGENTS) expect(AgentDefinitionSchema.parse(agent)).toEqual(agent);
    const [general, researcher] = BUILTIN_AGENTS;
    expect(general).toMatchObject({ source: 'builtin', file: null });
    expect(general!.tools).toBeUndefined();
    expect(general!.readOnly).toBeUndefined();
    expect(general!.prompt).toMatch(/do not ask the person/i);
    expect(researcher).toMatchObject({ source: 'builtin', file: null, readOnly: true, tools: [...READING_TOOLS] });
    expect(researcher!.prompt).toMatch(/change nothing/i);
    expect(READING_TOOLS).not.toContain('agent');
  });

  it('are all there is when neither folder exists (a missing folder is not a problem)', () => {
    const nowhere = join(tempDir(), 'nope');
    const loaded = loadAgentDefinitions({ projectDir: nowhere, userDir: nowhere, knownTools: KNOWN });
    expect(loaded).toEqual({ agents: BUILTIN_AGENTS.map((agent) => ({ ...agent })), problems: [] });
  });

  it('are handed out as copies, so a caller cannot change them for the next load', () => {
    const loaded = loadAgentDefinitions({ projectDir: tempDir(), userDir: tempDir(), knownTools: KNOWN });
    loaded.agents[1]!.tools!.push('agent');
    expect(BUILTIN_AGENTS[1]!.tools).toEqual([...READING_TOOLS]);
  });
});

describe('loadAgentDefinitions', () => {
  it('reads both folders with their source and absolute file paths', () => {
    const setup = folders({ 'p.md': definition('from-project') }, { 'u.md': definition('from-user') });
    const loaded = loadAgentDefinitions(setup);
    expect(loaded.problems).toEqual([]);
    expect(names(loaded)).toEqual([GENERAL_PURPOSE, RESEARCHER, 'from-project', 'from-user']);
    expect(loaded.agents[2]).toMatchObject({ source: 'project', file: at(setup, 'p.md') });
    expect(loaded.agents[3]).toMatchObject({ source: 'user', file: join(setup.userDir, 'u.md') });
  });

  it('lets the project override the user; a file naming a built-in agent is skipped and reported', () => {
    const project = {
      's.md': definition('shared', '', 'Project prompt.'),
      'r.md': definition(RESEARCHER, '', 'Mine.'),
    };
    const user = { 's.md': definition('shared', '', 'User prompt.'), 'g.md': definition(GENERAL_PURPOSE, '', 'Ours.') };
    const setup = folders(project, user);
    const loaded = loadAgentDefinitions(setup);
    expect(loaded.problems.map((problem) => [problem.file, problem.field])).toEqual([
      [join(setup.userDir, 'g.md'), 'name'],
      [at(setup, 'r.md'), 'name'],
    ]);
    expect(loaded.problems[1]!.message).toMatch(/"researcher" is a built-in agent and cannot be replaced/);
    expect(loaded.agents.map((agent) => [agent.name, agent.source])).toEqual([
      [GENERAL_PURPOSE, 'builtin'],
      [RESEARCHER, 'builtin'],
      ['shared', 'project'],
    ]);
    // The researcher stays read-only with its reading tools.
    expect(loaded.agents[1]).toMatchObject({ readOnly: true, prompt: expect.not.stringContaining('Mine.') });
  });

  it('sorts the added agents by name, whatever their file names', () => {
    const setup = folders({ '1.md': definition('zeta'), '2.md': definition('alpha') }, { '0.md': definition('mid') });
    expect(names(loadAgentDefinitions(setup))).toEqual([GENERAL_PURPOSE, RESEARCHER, 'alpha', 'mid', 'zeta']);
  });

  it('keeps the first file by file name when two in one folder share a name', () => {
    const setup = folders({ 'b.md': definition('same', '', 'From b.'), 'a.md': definition('same', '', 'From a.') });
    const loaded = loadAgentDefinitions(setup);
    expect(loaded.agents.at(-1)).toMatchObject({ name: 'same', prompt: 'From a.' });
    expect(loaded.problems).toEqual([
      issue(at(setup, 'b.md'), 'name', `a.md in the same folder already defines the agent "same"; ${SKIPPED}`),
    ]);
  });

  it('skips an invalid definition with its problem and keeps the rest', () => {
    const setup = folders({ 'bad.md': definition('bad', 'tools: [rm_rf]\n'), 'good.md': definition('good') });
    const loaded = loadAgentDefinitions(setup);
    expect(names(loaded)).toEqual([GENERAL_PURPOSE, RESEARCHER, 'good']);
    expect(loaded.problems).toEqual([issue(at(setup, 'bad.md'), 'tools.0', `unknown tool "rm_rf"; ${KNOWN_LISTED}`)]);
  });

  it('reads only .md files directly in the folder, never subfolders or dot files', () => {
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => definition(name));
    const setup = folders({ 'a.md': a!, 'b.txt': b!, 'c.md.bak': c!, 'D.MD': d! });
    mkdirSync(at(setup, 'sub'));
    writeFileSync(join(at(setup, 'sub'), 'e.md'), definition('e'));
    mkdirSync(at(setup, 'folder.md'));
    writeFileSync(at(setup, '.hidden.md'), definition('hidden'));
    symlinkSync('user@host.123', at(setup, '.#a.md'));
    const loaded = loadAgentDefinitions(setup);
    expect(loaded).toMatchObject({ problems: [] });
    expect(names(loaded)).toEqual([GENERAL_PURPOSE, RESEARCHER, 'a']);
  });

  it('refuses a file over 64 KiB without parsing it, and reads one of exactly 64 KiB', () => {
    const [head, limit] = [definition('big', '', ''), AGENT_FILE_MAX_BYTES];
    const padded = (size: number) => head + 'x'.repeat(size - Buffer.byteLength(head));
    const setup = folders({ 'big.md': padded(limit + 1), 'edge.md': padded(limit) });
    const loaded = loadAgentDefinitions(setup);
    expect(loaded.problems).toEqual([
      issue(at(setup, 'big.md'), null, `is ${limit + 1} bytes; an agent definition may be at most 64 KiB`),
      // Read whole, so its (too long) body was judged.
      issue(at(setup, 'edge.md'), 'body', expect.stringMatching(/^the body is \d+ characters/)),
    ]);
  });

  it('follows a link within the folder but skips one that leads outside it', () => {
    const setup = folders({ 'real.md': definition('real') });
    const outside = join(tempDir(), 'secret.md');
    writeFileSync(outside, definition('outsider'));
    symlinkSync(at(setup, 'real.md'), at(setup, 'alias.md'));
    symlinkSync(outside, at(setup, 'out.md'));
    const loaded = loadAgentDefinitions(setup);
    expect(names(loaded)).toEqual([GENERAL_PURPOSE, RESEARCHER, 'real']);
    expect(loaded.problems).toEqual([
      issue(
        at(setup, 'out.md'),
        null,
        `is a link to ${realpathSync(outside)}, outside the agents folder; it was skipped`,
      ),
      // alias.md sorts first, so it is the one kept; real.md names the same agent.
      issue(at(setup, 'real.md'), 'name', expect.stringMatching(/^alias\.md in the same folder/)),
    ]);
    expect(loaded.agents[2]!.file).toBe(at(setup, 'alias.md'));
  });

  it('reads a folder that is itself a link', () => {
    const real = tempDir();
    writeFileSync(join(real, 'a.md'), definition('linked'));
    const userDir = join(tempDir(), 'agents');
    symlinkSync(real, userDir);
    const loaded = loadAgentDefinitions({ projectDir: tempDir(), userDir, knownTools: KNOWN });
    expect(loaded.problems).toEqual([]);
    expect(loaded.agents[2]).toMatchObject({ name: 'linked', source: 'user', file: join(userDir, 'a.md') });
  });

  it('reports links that lead nowhere or in circles as unreadable', () => {
    const setup = folders({});
    symlinkSync(at(setup, 'missing'), at(setup, 'dangling.md'));
    symlinkSync(at(setup, 'loop-b.md'), at(setup, 'loop-a.md'));
    symlinkSync(at(setup, 'loop-a.md'), at(setup, 'loop-b.md'));
    const loaded = loadAgentDefinitions(setup);
    expect(names(loaded)).toEqual([GENERAL_PURPOSE, RESEARCHER]);
    expect(loaded.problems).toEqual([
      issue(at(setup, 'dangling.md'), null, 'is a link that leads nowhere readable (ENOENT)'),
      issue(at(setup, 'loop-a.md'), null, 'is a link that leads nowhere readable (ELOOP)'),
      issue(at(setup, 'loop-b.md'), null, 'is a link that leads nowhere readable (ELOOP)'),
    ]);
  });

  it.skipIf(process.platform === 'win32')('reports a FIFO as not a regular file, without blocking on it', () => {
    const setup = folders({});
    execFileSync('mkfifo', [at(setup, 'pipe.md')]);
    expect(loadAgentDefinitions(setup).problems).toEqual([issue(at(setup, 'pipe.md'), null, 'is not a regular file')]);
  });

  it('reports a file that is not UTF-8', () => {
    const setup = folders({});
    writeFileSync(at(setup, 'latin.md'), Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xe9, 0x0a]));
    expect(loadAgentDefinitions(setup).problems).toEqual([issue(at(setup, 'latin.md'), null, 'is not UTF-8 text')]);
  });

  it('turns a folder that cannot be listed into one problem', () => {
    const projectDir = tempDir();
    mkdirSync(join(projectDir, '.drover'));
    writeFileSync(join(projectDir, '.drover', 'agents'), 'not a folder');
    const userDir = join(tempDir(), 'file');
    writeFileSync(userDir, 'not a folder either');
    const loaded = loadAgentDefinitions({ projectDir, userDir, knownTools: KNOWN });
    expect(names(loaded)).toEqual([GENERAL_PURPOSE, RESEARCHER]);
    expect(loaded.problems).toEqual([
      issue(join(projectDir, '.drover', 'agents'), null, 'the agents folder could not be listed: ENOTDIR'),
      issue(userDir, null, 'the agents folder could not be listed: ENOTDIR'),
    ]);
  });
});
