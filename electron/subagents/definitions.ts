import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { isScalar, parseDocument, visit, type DocumentOptions, type ParseOptions, type SchemaOptions } from 'yaml';
import {
  AGENT_PROMPT_MAX_CHARS,
  AgentDefinitionFrontmatterSchema,
  type AgentDefinition,
  type AgentDefinitionProblem,
} from '../../shared/schemas/subagent.js';

/**
 * Agent definitions (issue #17): the two built-in agents, and the Markdown files with YAML
 * frontmatter that the project (`.drover/agents/`) and the user's agents folder add or override.
 */

export const GENERAL_PURPOSE = 'general-purpose';
export const RESEARCHER = 'researcher';

/** Tools that only read: the researcher gets these (run_command among them, its commands judged read-only by the gate). */
// Not monitor_events (a read moves the offset the session's model reads from) nor agent_output
// (it can kill an agent): what only reads.
export const READING_TOOLS: readonly string[] = Object.freeze([
  'run_command',
  'list_tasks',
  'read_task_output',
  'task_list',
  'task_get',
  'cron_list',
  'sleep',
]);

/** A definition file larger than this is refused without being read. */
export const AGENT_FILE_MAX_BYTES = 64 * 1024;

/** Where a project keeps its agents, below the project folder. */
export const PROJECT_AGENTS_FOLDER = join('.drover', 'agents');

const FRONTMATTER_FIELDS = Object.keys(AgentDefinitionFrontmatterSchema.shape).join(', ');

export const BUILTIN_AGENTS: readonly AgentDefinition[] = Object.freeze([
  Object.freeze({
    name: GENERAL_PURPOSE,
    description:
      'Does a self-contained, multi-step task on its own (searching, reading, running commands, making changes) and reports what it found and did. Has your tools except starting further agents.',
    prompt: [
      'You are a sub-agent: another agent handed you a task and is waiting for your answer.',
      'Do the task completely and on your own. Nobody reads along while you work, so do not ask the person questions: where something is unclear, make the most reasonable choice and say which one you made.',
      'When you are done, reply with a concise report of what you found or did, naming the files involved by their paths. Your last message is the whole result the other agent receives.',
    ].join('\n\n'),
    source: 'builtin' as const,
    file: null,
  }),
  Object.freeze({
    name: RESEARCHER,
    description:
      'Read-only investigation: finds out how something works or why something happens and reports the facts with file paths and evidence. Changes nothing.',
    tools: [...READING_TOOLS],
    prompt: [
      'You are a read-only research sub-agent: another agent handed you a question and is waiting for your answer.',
      'Investigate and report facts. Change nothing: do not edit, create or delete files, and run only commands that read. Nobody reads along while you work, so do not ask the person questions.',
      'Back every finding with evidence: the file path (and line, where it helps), the command you ran and what it printed. Say plainly what you could not establish. Your last message is the whole result the other agent receives.',
    ].join('\n\n'),
    source: 'builtin' as const,
    file: null,
    readOnly: true,
  }),
]);

export interface LoadedDefinitions {
  agents: AgentDefinition[];
  problems: AgentDefinitionProblem[];
}

/** True for the problem half of what parseAgentDefinition returns. */
export function isDefinitionProblem(value: AgentDefinition | AgentDefinitionProblem): value is AgentDefinitionProblem {
  return !('prompt' in value);
}

/**
 * Reads `<projectDir>/.drover/agents/*.md` and `<userDir>/*.md`; project overrides user. The
 * built-in names are reserved: a cloned project must not turn "researcher", which the model
 * trusts to be read-only, into an agent with every tool, so such a file is skipped and reported.
 */
export function loadAgentDefinitions(options: {
  projectDir: string;
  userDir: string;
  knownTools: readonly string[];
}): LoadedDefinitions {
  const project = readAgentFolder(resolve(options.projectDir, PROJECT_AGENTS_FOLDER), 'project', options.knownTools);
  const user = readAgentFolder(resolve(options.userDir), 'user', options.knownTools);
  const builtinNames = new Set(BUILTIN_AGENTS.map((agent) => agent.name));
  const reserved: AgentDefinitionProblem[] = [];
  const byName = new Map<string, AgentDefinition>();
  for (const agent of [...user.agents, ...project.agents]) {
    if (builtinNames.has(agent.name))
      reserved.push({
        file: agent.file ?? '',
        field: 'name',
        message: `"${agent.name}" is a built-in agent and cannot be replaced; give this one another name. The file was skipped.`,
      });
    else byName.set(agent.name, agent);
  }
  const added = [...byName.values()].sort((a, b) => compareNames(a.name, b.name));
  return {
    agents: [...BUILTIN_AGENTS.map(copyDefinition), ...added],
    problems: [...project.problems, ...user.problems, ...reserved],
  };
}

/** One file's text to a definition, or the problem naming the field. */
export function parseAgentDefinition(
  text: string,
  file: string,
  source: 'project' | 'user',
  knownTools: readonly string[],
): AgentDefinition | AgentDefinitionProblem {
  const problem = (field: string | null, message: string): AgentDefinitionProblem => ({ file, field, message });
  try {
    const split = splitFrontmatter(text);
    if (typeof split === 'string') return problem(null, split);

    const yaml = parseFrontmatter(split.yaml);
    if (typeof yaml === 'string') return problem(null, yaml);

    const checked = AgentDefinitionFrontmatterSchema.safeParse(yaml.value);
    if (!checked.success) {
      const issue = checked.error.issues[0]!;
      if (issue.code === 'unrecognized_keys') {
        const key = issue.keys[0] ?? '';
        return problem(
          [...issue.path, key].join('.'),
          `unknown field ${JSON.stringify(key)}; the fields are ${FRONTMATTER_FIELDS}`,
        );
      }
      return problem(issue.path.length > 0 ? issue.path.join('.') : null, issue.message);
    }
    const frontmatter = checked.data;

    if (frontmatter.tools) {
      const unknown = frontmatter.tools.findIndex((tool) => !knownTools.includes(tool));
      if (unknown >= 0) {
        return problem(
          `tools.${unknown}`,
          `unknown tool ${JSON.stringify(frontmatter.tools[unknown])}; the known tools are ${knownTools.join(', ')}`,
        );
      }
      frontmatter.tools = [...new Set(frontmatter.tools)];
    }

    if (split.body === '') return problem('body', 'the body is empty; write the system prompt after the frontmatter');
    if (split.body.length > AGENT_PROMPT_MAX_CHARS) {
      return problem(
        'body',
        `the body is ${split.body.length} characters; a system prompt may be at most ${AGENT_PROMPT_MAX_CHARS}`,
      );
    }
    return { ...frontmatter, prompt: split.body, source, file };
  } catch (error) {
    // Nothing above should throw; if a library does, the file is reported, never the load.
    return problem(null, `could not be parsed: ${describeError(error)}`);
  }
}

/**
 * The frontmatter is split by hand rather than with a library such as gray-matter: the rule is three
 * lines long, and those libraries run JavaScript frontmatter (`---js`) through eval.
 */
function splitFrontmatter(text: string): { yaml: string; body: string } | string {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const fence = /^---[ \t]*$/;
  if (!fence.test(lines[0]!)) {
    return `needs frontmatter between --- lines at the top (${FRONTMATTER_FIELDS}), then the system prompt`;
  }
  const close = lines.findIndex((line, index) => index > 0 && fence.test(line));
  if (close < 0) return 'the frontmatter opened by --- on line 1 is never closed by a --- line';
  const body = lines.slice(close + 1).join('\n');
  return { yaml: lines.slice(1, close).join('\n'), body: body.trim() };
}

const YAML_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  // YAML 1.2 core: `yes` stays a string, no 1.1 extras such as !!binary or !!set resolve by default.
  schema: 'core',
  customTags: [],
  uniqueKeys: true,
  merge: false,
  prettyErrors: false,
  logLevel: 'silent',
  strict: true,
};

/**
 * The frontmatter's YAML as plain data, or why it cannot be used. An allow-list: plain scalars,
 * lists and maps only. Any explicit tag (`!!js/function`, `!foo`, even `!!str`), any anchor or
 * alias, and any key that is not a scalar is refused; so is whatever the parser only warned about.
 */
function parseFrontmatter(yaml: string): { value: Record<string, unknown> } | string {
  const doc = parseDocument(yaml, YAML_OPTIONS);
  const trouble = doc.errors[0] ?? doc.warnings[0];
  if (trouble) {
    const offset = trouble.pos[0];
    const line = yaml.slice(0, offset).split('\n').length + 1;
    return `the frontmatter is not valid YAML (line ${line} of the file): ${trouble.message}`;
  }
  let refused: string | null = null;
  visit(doc, {
    Alias() {
      refused = 'the frontmatter uses an alias (*name); anchors and aliases are not allowed';
      return visit.BREAK;
    },
    Pair(_, pair) {
      if (!isScalar(pair.key)) {
        refused = 'the frontmatter has a key that is not a plain word';
        return visit.BREAK;
      }
      return undefined;
    },
    Node(_, node) {
      // The parser records a node's tag only when the source wrote one.
      if (node.tag) {
        refused = `the frontmatter uses the tag ${node.tag}; tags are not allowed`;
        return visit.BREAK;
      }
      if ('anchor' in node && node.anchor) {
        refused = `the frontmatter defines the anchor &${node.anchor}; anchors and aliases are not allowed`;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  if (refused) return refused;
  // No alias gets this far; were one to, it would fail here instead of expanding (no billion laughs).
  const value: unknown = doc.toJS({ maxAliasCount: 0 });
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return `the frontmatter must be a mapping of fields (${FRONTMATTER_FIELDS})`;
  }
  return { value: value as Record<string, unknown> };
}

/** One folder's definitions: its `.md` files, not its subfolders. */
function readAgentFolder(folder: string, source: 'project' | 'user', knownTools: readonly string[]): LoadedDefinitions {
  const agents: AgentDefinition[] = [];
  const problems: AgentDefinitionProblem[] = [];
  let names: string[];
  let realFolder: string;
  try {
    names = readdirSync(folder);
    realFolder = realpathSync(folder);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return { agents, problems };
    return {
      agents,
      problems: [
        { file: folder, field: null, message: `the agents folder could not be listed: ${describeError(error)}` },
      ],
    };
  }
  // Dot files are editors' lock and backup files (Emacs's `.#name.md` is a dangling link), never definitions.
  const files = names.filter((name) => name.endsWith('.md') && !name.startsWith('.')).sort(compareNames);
  const firstFileOf = new Map<string, string>();
  for (const name of files) {
    const file = join(folder, name);
    const text = readAgentFile(file, realFolder);
    if (text === null) continue;
    if (typeof text !== 'string') {
      problems.push({ file, field: null, message: text.problem });
      continue;
    }
    const parsed = parseAgentDefinition(text, file, source, knownTools);
    if (isDefinitionProblem(parsed)) {
      problems.push(parsed);
      continue;
    }
    const first = firstFileOf.get(parsed.name);
    if (first !== undefined) {
      problems.push({
        file,
        field: 'name',
        message: `${first} in the same folder already defines the agent ${JSON.stringify(parsed.name)}; this file was skipped`,
      });
      continue;
    }
    firstFileOf.set(parsed.name, name);
    agents.push(parsed);
  }
  return { agents, problems };
}

/**
 * A definition file's text; null for something to pass over silently (a folder); or the problem.
 * The size is checked before reading, and again on the open descriptor, which is opened without
 * following a final link and without blocking (a FIFO swapped in after the check cannot hang the load).
 */
function readAgentFile(file: string, realFolder: string): string | null | { problem: string } {
  let target = file;
  let descriptor: number | null = null;
  try {
    let stats = lstatSync(file);
    if (stats.isSymbolicLink()) {
      try {
        target = realpathSync(file);
      } catch (error) {
        return { problem: `is a link that leads nowhere readable (${describeError(error)})` };
      }
      if (!isInside(realFolder, target)) {
        return { problem: `is a link to ${target}, outside the agents folder; it was skipped` };
      }
      stats = statSync(target);
    }
    if (stats.isDirectory()) return null;
    if (!stats.isFile()) return { problem: 'is not a regular file' };
    if (stats.size > AGENT_FILE_MAX_BYTES) return { problem: tooLarge(`${stats.size} bytes`) };

    descriptor = openSync(target, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    const opened = fstatSync(descriptor);
    if (!opened.isFile()) return { problem: 'is not a regular file' };
    if (opened.size > AGENT_FILE_MAX_BYTES) return { problem: tooLarge(`${opened.size} bytes`) };
    // One byte more than allowed tells a file that grew since the check from one that fits.
    const buffer = Buffer.alloc(AGENT_FILE_MAX_BYTES + 1);
    let length = 0;
    for (;;) {
      const read = readSync(descriptor, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
      if (length === buffer.length) return { problem: tooLarge(`over ${AGENT_FILE_MAX_BYTES} bytes`) };
    }
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(buffer.subarray(0, length));
    } catch {
      return { problem: 'is not UTF-8 text' };
    }
  } catch (error) {
    return { problem: `could not be read: ${describeError(error)}` };
  } finally {
    if (descriptor !== null) closeSync(descriptor);
  }
}

function tooLarge(size: string): string {
  return `is ${size}; an agent definition may be at most ${AGENT_FILE_MAX_BYTES / 1024} KiB`;
}

function isInside(folder: string, path: string): boolean {
  const rest = relative(folder, path);
  return rest !== '' && rest !== '..' && !rest.startsWith(`..${sep}`) && !isAbsolute(rest);
}

/** Code-unit order: the same on every machine, whatever its locale. */
function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function copyDefinition(agent: AgentDefinition): AgentDefinition {
  return agent.tools ? { ...agent, tools: [...agent.tools] } : { ...agent };
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

function describeError(error: unknown): string {
  return errorCode(error) ?? (error instanceof Error ? error.message : String(error));
}
