import { z } from 'zod';
import { ShellResultSchema } from '../../shared/contract.js';
import { TaskRowSchema } from '../../shared/schemas/task.js';
import { FinishedCountsSchema, type FinishedPage, type OpenTasks } from '../../shared/schemas/task-page.js';
import {
  cursorFrom,
  itemNumber,
  optionalNumber,
  optionalText,
  restPage,
  RestCursorSchema,
  RestPageSchema,
} from './rest-query.js';

export const REST_PREFIX = '/api';

export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  pattern: RegExp;
  request: string;
  /** Builds the contract input from the path's captures, the query and the (camel-cased) body. */
  input: (params: string[], body: Record<string, unknown>, query: URLSearchParams) => unknown;
  status?: number;
  /** Reshapes the contract's answer for REST (before snake-casing)… */
  present?: (value: unknown) => unknown;
  /** …and then this describes the answer (in camelCase, like the contract), for the OpenAPI document. */
  presented?: z.ZodType;
  /** Query parameters, for the OpenAPI document: the name REST reads → the contract's field it fills. */
  query?: Readonly<Record<string, string>>;
  /** A query parameter REST spells differently from the contract's field (a cursor as one word): its schema. */
  querySchemas?: Readonly<Record<string, z.ZodType>>;
}

const ID = '([^/]+)';

/** The operator's shell line answers with the task's row, plus the output and notice of a foreground run. */
const shellAnswer: Pick<Route, 'present' | 'presented'> = {
  present: (value) => {
    const { task, output, notice } = value as {
      task: object;
      output: { text: string; truncated: boolean } | null;
      notice: string | null;
    };
    return { ...task, output: output?.text ?? null, outputTruncated: output?.truncated ?? false, notice };
  },
  presented: TaskRowSchema.extend({
    output: z.string().nullable(),
    outputTruncated: z.boolean(),
    notice: ShellResultSchema.shape.notice,
  }),
};

/** The REST surface: a thin map from paths to contract requests, so both validate alike. */
export const routes: readonly Route[] = [
  { method: 'GET', pattern: re('/info'), request: 'appInfo', input: () => ({}) },
  { method: 'GET', pattern: re('/settings'), request: 'getSettings', input: () => ({}) },
  { method: 'PUT', pattern: re('/settings'), request: 'updateSettings', input: (_, body) => body },
  { method: 'POST', pattern: re('/settings/test-connection'), request: 'testConnection', input: (_, body) => body },
  { method: 'GET', pattern: re('/sessions'), request: 'listSessions', input: () => ({}) },
  { method: 'POST', pattern: re('/sessions'), request: 'createSession', input: (_, body) => body, status: 201 },
  { method: 'GET', pattern: re(`/sessions/${ID}`), request: 'getSession', input: ([id]) => ({ id }) },
  {
    method: 'PATCH',
    pattern: re(`/sessions/${ID}`),
    request: 'renameSession',
    input: ([id], body) => ({ ...body, id }),
  },
  {
    method: 'PUT',
    pattern: re(`/sessions/${ID}/mode`),
    request: 'setSessionMode',
    input: ([id], body) => ({ ...body, id }),
  },
  { method: 'DELETE', pattern: re(`/sessions/${ID}`), request: 'deleteSession', input: ([id]) => ({ id }) },
  {
    method: 'GET',
    pattern: re(`/sessions/${ID}/schedules`),
    request: 'listSchedules',
    input: ([sessionId]) => ({ sessionId }),
  },
  {
    method: 'DELETE',
    pattern: re(`/sessions/${ID}/schedules/${ID}`),
    request: 'deleteSchedule',
    input: ([sessionId, id]) => ({ sessionId, id }),
  },
  {
    method: 'POST',
    pattern: re(`/sessions/${ID}/loops`),
    request: 'startLoop',
    input: ([sessionId], body) => ({ ...body, sessionId }),
    status: 201,
  },
  {
    method: 'DELETE',
    pattern: re(`/sessions/${ID}/loops`),
    request: 'stopLoops',
    input: ([sessionId]) => ({ sessionId }),
  },
  {
    method: 'GET',
    pattern: re(`/sessions/${ID}/budget`),
    request: 'getBudget',
    input: ([sessionId]) => ({ sessionId }),
  },
  {
    method: 'POST',
    pattern: re(`/sessions/${ID}/budget/resume`),
    request: 'resumeBudget',
    input: ([sessionId]) => ({ sessionId }),
  },
  { method: 'GET', pattern: re('/schedules/durable'), request: 'listDurableJobs', input: () => ({}) },
  { method: 'GET', pattern: re('/agents'), request: 'listAgentDefinitions', input: () => ({}) },
  { method: 'GET', pattern: re('/schedules/held'), request: 'heldSchedules', input: () => ({}) },
  { method: 'POST', pattern: re('/schedules/held/resume'), request: 'resumeHeld', input: (_, body) => body },
  { method: 'POST', pattern: re('/schedules/held/pause'), request: 'pauseHeld', input: (_, body) => body },
  { method: 'DELETE', pattern: re(`/schedules/${ID}`), request: 'deleteSchedule', input: ([id]) => ({ id }) },
  {
    method: 'PATCH',
    pattern: re(`/schedules/${ID}`),
    request: 'pauseSchedule',
    input: ([id], body) => ({ ...body, id }),
  },
  { method: 'POST', pattern: re(`/schedules/${ID}/run`), request: 'runScheduleNow', input: ([id]) => ({ id }) },
  {
    method: 'GET',
    pattern: re(`/sessions/${ID}/messages`),
    request: 'listMessages',
    input: ([sessionId], _body, query) => ({
      sessionId,
      ...optionalNumber(query, 'before_id', 'beforeId'),
      ...optionalNumber(query, 'limit'),
    }),
    query: { before_id: 'beforeId', limit: 'limit' },
  },
  {
    method: 'POST',
    pattern: re(`/sessions/${ID}/messages`),
    request: 'postMessage',
    input: ([sessionId], body) => ({ ...body, sessionId }),
    status: 201,
  },
  {
    method: 'GET',
    pattern: re(`/sessions/${ID}/permissions`),
    request: 'listPermissions',
    input: ([sessionId]) => ({ sessionId }),
  },
  {
    method: 'POST',
    pattern: re(`/sessions/${ID}/permissions/${ID}`),
    request: 'answerPermission',
    input: ([sessionId, requestId], body) => ({ ...body, sessionId, requestId }),
  },
  {
    method: 'GET',
    pattern: re(`/sessions/${ID}/sandbox`),
    request: 'getSandbox',
    input: ([sessionId]) => ({ sessionId }),
  },
  {
    method: 'POST',
    pattern: re(`/sessions/${ID}/sandbox/hosts`),
    request: 'allowSandboxHost',
    input: ([sessionId], body) => ({ ...body, sessionId }),
  },
  {
    method: 'DELETE',
    pattern: re(`/sessions/${ID}/sandbox/hosts/${ID}`),
    request: 'removeSandboxHost',
    input: ([sessionId, host]) => ({ sessionId, host }),
  },
  {
    method: 'POST',
    pattern: re(`/sessions/${ID}/cancel`),
    request: 'cancelTurn',
    input: ([sessionId]) => ({ sessionId }),
  },
  {
    method: 'POST',
    pattern: re(`/sessions/${ID}/retry`),
    request: 'retryTurn',
    input: ([sessionId]) => ({ sessionId }),
    status: 202,
  },
  {
    method: 'GET',
    pattern: re(`/sessions/${ID}/agent`),
    request: 'agentStatus',
    input: ([sessionId]) => ({ sessionId }),
  },
  {
    method: 'GET',
    pattern: re(`/sessions/${ID}/background-tasks`),
    request: 'listTasks',
    input: ([sessionId]) => ({ sessionId }),
  },
  {
    method: 'POST',
    pattern: re(`/sessions/${ID}/background-tasks`),
    request: 'startTask',
    input: ([sessionId], body) => ({ ...body, sessionId }),
    status: 201,
  },
  {
    method: 'DELETE',
    pattern: re(`/sessions/${ID}/background-tasks`),
    request: 'clearFinishedTasks',
    input: ([sessionId]) => ({ sessionId }),
  },
  {
    method: 'GET',
    pattern: re(`/sessions/${ID}/background-tasks/open`),
    request: 'openTasks',
    input: ([sessionId], _body, query) => ({
      sessionId,
      ...optionalText(query, 'filter'),
      ...optionalNumber(query, 'limit'),
    }),
    query: { filter: 'filter', limit: 'limit' },
    present: (value) => {
      const open = value as OpenTasks;
      return { ...open, finished: restPage(open.finished) };
    },
    presented: z.object({
      live: z.array(TaskRowSchema),
      counts: FinishedCountsSchema,
      finished: RestPageSchema,
      newest: z.number().int(),
    }),
  },
  {
    method: 'GET',
    pattern: re(`/sessions/${ID}/background-tasks/finished`),
    request: 'pageFinishedTasks',
    input: ([sessionId], _body, query) => ({
      sessionId,
      ...optionalText(query, 'filter'),
      ...optionalNumber(query, 'limit'),
      ...cursorFrom(query),
    }),
    query: { filter: 'filter', limit: 'limit', after: 'after' },
    querySchemas: { after: RestCursorSchema },
    present: (value) => restPage(value as FinishedPage),
    presented: RestPageSchema,
  },
  {
    method: 'POST',
    pattern: re(`/sessions/${ID}/background-tasks/reap`),
    request: 'reapTasks',
    input: ([sessionId]) => ({ sessionId }),
  },
  {
    method: 'GET',
    pattern: re(`/sessions/${ID}/background-tasks/${ID}`),
    request: 'getTask',
    input: ([sessionId, taskId], _body, query) => ({ sessionId, taskId, ...optionalNumber(query, 'tail') }),
    query: { tail: 'tail' },
  },
  {
    method: 'POST',
    pattern: re(`/sessions/${ID}/background-tasks/${ID}/input`),
    request: 'writeTask',
    input: ([sessionId, taskId], body) => ({ ...body, sessionId, taskId }),
  },
  {
    method: 'GET',
    pattern: re(`/sessions/${ID}/background-tasks/${ID}/search`),
    request: 'searchTaskLog',
    input: ([sessionId, taskId], _body, query) => ({
      sessionId,
      taskId,
      query: query.get('q') ?? '',
      ...optionalNumber(query, 'max_matches', 'maxMatches'),
    }),
    query: { q: 'query', max_matches: 'maxMatches' },
  },
  {
    method: 'GET',
    pattern: re(`/sessions/${ID}/background-tasks/${ID}/events`),
    request: 'readTaskEvents',
    input: ([sessionId, taskId], _body, query) => ({
      sessionId,
      taskId,
      ...optionalNumber(query, 'from_offset', 'fromOffset'),
      ...optionalNumber(query, 'max_bytes', 'maxBytes'),
    }),
    query: { from_offset: 'fromOffset', max_bytes: 'maxBytes' },
  },
  {
    method: 'POST',
    pattern: re(`/sessions/${ID}/kill`),
    request: 'killProcess',
    input: ([sessionId], body) => ({ ...body, sessionId }),
  },
  { method: 'GET', pattern: re('/ports'), request: 'listPorts', input: () => ({}) },
  {
    method: 'GET',
    pattern: re(`/work-lists/${ID}/items`),
    request: 'listWorkItems',
    input: ([listId], _body, query) => {
      const raw = query.get('include_completed');
      return {
        listId,
        ...(raw === null ? {} : { includeCompleted: raw === 'true' ? true : raw === 'false' ? false : raw }),
      };
    },
    query: { include_completed: 'includeCompleted' },
  },
  {
    method: 'POST',
    pattern: re(`/work-lists/${ID}/items`),
    request: 'createWorkItem',
    input: ([listId], body) => ({ ...body, listId }),
    status: 201,
  },
  {
    method: 'GET',
    pattern: re(`/work-lists/${ID}/items/${ID}`),
    request: 'getWorkItem',
    input: ([listId, itemId]) => ({ listId, itemId: itemNumber(itemId!) }),
  },
  {
    method: 'PATCH',
    pattern: re(`/work-lists/${ID}/items/${ID}`),
    request: 'updateWorkItem',
    input: ([listId, itemId], body) => ({ ...body, listId, itemId: itemNumber(itemId!) }),
  },
  {
    method: 'DELETE',
    pattern: re(`/work-lists/${ID}/items/${ID}`),
    request: 'deleteWorkItem',
    input: ([listId, itemId]) => ({ listId, itemId: itemNumber(itemId!) }),
  },
  {
    method: 'GET',
    pattern: re(`/sessions/${ID}/todos`),
    request: 'getTodos',
    input: ([sessionId]) => ({ sessionId }),
  },
  {
    method: 'PUT',
    pattern: re(`/sessions/${ID}/todos`),
    request: 'putTodos',
    input: ([sessionId], body) => ({ ...body, sessionId }),
  },
  {
    method: 'POST',
    pattern: re(`/sessions/${ID}/background-tasks/${ID}/stop`),
    request: 'stopTask',
    input: ([sessionId, taskId]) => ({ sessionId, taskId }),
  },
  {
    method: 'POST',
    pattern: re(`/sessions/${ID}/background-tasks/${ID}/rerun`),
    request: 'rerunTask',
    input: ([sessionId, taskId]) => ({ sessionId, taskId }),
    status: 201,
    ...shellAnswer,
  },
  {
    method: 'POST',
    pattern: re(`/sessions/${ID}/background-tasks/${ID}/background`),
    request: 'backgroundTask',
    input: ([sessionId, taskId]) => ({ sessionId, taskId }),
  },
  {
    method: 'POST',
    pattern: re(`/sessions/${ID}/shell`),
    request: 'runShell',
    input: ([sessionId], body) => ({ ...body, sessionId }),
    ...shellAnswer,
  },
];

function re(path: string): RegExp {
  return new RegExp(`^${REST_PREFIX}${path}/?$`);
}
