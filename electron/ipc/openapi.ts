import { z } from 'zod';
import { contract } from '../../shared/contract.js';
import { IpcErrorSchema } from '../../shared/ipc/errors.js';
import { snake } from './case.js';
import { routes, type Route } from './rest-routes.js';

/** The path parameters of a route under one task, for the routes described by hand below. */
const TASK_PATH_PARAMETERS = ['session_id', 'task_id'].map((name) => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string' },
}));

/** Where the document is served (behind the token, like the rest of /api). */
export const OPENAPI_PATH = '/api/openapi.json';

type JsonSchema = Record<string, unknown>;

/** Statuses any call may answer besides its success, and what each means. */
const FAILURES: Record<string, string> = {
  '400': 'invalid_input: the body, a query or a path part is not what this call takes; `path` names the field',
  '401': 'unauthorized: no token, or the wrong one',
  '404': 'not_found: no such session, task or route',
  '409': 'conflict: the call does not fit the current state',
  '405': 'method_not_allowed: the method is not one this path takes (the Allow header lists those it does)',
  '421': 'misdirected: the Host header is not 127.0.0.1:PORT or localhost:PORT (refused before the token is read)',
  '429': 'busy: this connection has too many requests running and waiting; wait for answers before sending more',
  '500': 'internal: failed inside Drover; the details are in its log',
  '503': 'unavailable: a part Drover needs is not available right now',
  '507': 'disk_full: the disk holding the data folder is full; nothing new is being saved',
};

/**
 * The REST surface as an OpenAPI 3.1 document, derived from its one source: the route table
 * (paths, methods, statuses) and the contract's schemas (bodies, queries, answers), with
 * property names in snake_case as REST speaks them.
 */
export function openApiDocument(version: string): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const { template, params } = describePath(route);
    const operation = describeOperation(route, params);
    (paths[template] ??= {})[route.method.toLowerCase()] = operation;
  }
  paths['/api/sessions/{session_id}/background-tasks/{task_id}/log'] = {
    get: {
      operationId: 'downloadTaskLog',
      summary: "A task's whole log as written (escape sequences and all), as a file to save",
      parameters: TASK_PATH_PARAMETERS,
      responses: {
        '200': {
          description: 'The log, as an attachment named after the task',
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
        ...failures(),
      },
    },
  };
  paths['/api/sessions/{session_id}/background-tasks/{task_id}/log-ticket'] = {
    post: {
      operationId: 'taskLogTicket',
      summary: "A single-use link that downloads a task's whole log without the token, for a browser to follow",
      parameters: TASK_PATH_PARAMETERS,
      responses: {
        '200': {
          description: 'The link: `/download/TICKET`, good for one download within 60 seconds, on this host only',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: { url: { type: 'string', pattern: '^/download/[A-Za-z0-9_-]{43}$' } },
                required: ['url'],
                additionalProperties: false,
              },
            },
          },
        },
        ...failures(),
      },
    },
  };
  paths['/download/{ticket}'] = {
    get: {
      operationId: 'downloadWithTicket',
      summary: "Spends a ticket from log-ticket: the task's whole log, as GET …/log sends it",
      // The ticket stands in for the token: a link a browser follows cannot send the header.
      security: [],
      parameters: [{ name: 'ticket', in: 'path', required: true, schema: { type: 'string' } }],
      responses: {
        '200': {
          description: 'The log, as an attachment named after the task',
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
        ...pick(failures(), ['405', '421']),
        '404': {
          description: 'not_found: the ticket is unknown, already used or expired (or the task is gone)',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
    },
  };
  paths[OPENAPI_PATH] = {
    get: {
      operationId: 'openapi',
      summary: 'This document',
      responses: {
        '200': {
          description: 'An OpenAPI 3.1 document',
          content: { 'application/json': { schema: { type: 'object' } } },
        },
        ...failures(),
      },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Drover REST API',
      version,
      description: 'Every call needs Authorization: Bearer TOKEN (the token the host printed at start).',
    },
    servers: [
      {
        url: 'http://127.0.0.1:{port}',
        variables: { port: { default: '0', description: 'The port the host printed at start' } },
      },
    ],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Error: { type: 'object', properties: { error: toRestSchema(IpcErrorSchema, 'output') }, required: ['error'] },
      },
    },
    paths,
  };
}

/** `^/api/sessions/([^/]+)/stop/?$` → `/api/sessions/{session_id}/stop`, naming each capture by the field it fills. */
function describePath(route: Route): { template: string; params: string[] } {
  // The input builders are pure: fed marked captures, they show which field each capture fills.
  const marks = Array.from({ length: 4 }, (_, i) => `\u0000capture${i}`);
  const probe = route.input(marks, {}, new URLSearchParams()) as Record<string, unknown>;
  const params = marks
    .map((mark) => Object.keys(probe).find((key) => probe[key] === mark))
    .filter((key): key is string => key !== undefined);
  let index = 0;
  const template = route.pattern.source
    .replace(/\\\//g, '/')
    .replace(/^\^/, '')
    .replace(/\/\?\$$/, '')
    .replace(/\(\[\^\/\]\+\)/g, () => `{${snake(params[index++] ?? `part${index}`)}}`);
  return { template, params };
}

function describeOperation(route: Route, params: string[]): Record<string, unknown> {
  const def = contract.requests[route.request as keyof typeof contract.requests];
  const input = toRestSchema(def.input, 'input');
  const properties = (input.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((input.required ?? []) as string[]);
  const fromPath = new Set(params.map(snake));
  const parameters: unknown[] = params.map((name) => ({
    name: snake(name),
    in: 'path',
    required: true,
    schema: properties[snake(name)] ?? { type: 'string' },
  }));
  const fromQuery = new Set<string>();
  for (const [restName, field] of Object.entries(route.query ?? {})) {
    fromQuery.add(snake(field));
    parameters.push({
      name: restName,
      in: 'query',
      required: required.has(snake(field)),
      schema: route.querySchemas?.[restName]
        ? toRestSchema(route.querySchemas[restName], 'input')
        : (properties[snake(field)] ?? {}),
    });
  }
  const operation: Record<string, unknown> = { operationId: route.request, summary: def.summary, parameters };
  const bodyTaken = route.method !== 'GET' && route.method !== 'DELETE' && takesBody(route);
  if (bodyTaken) {
    const bodyProperties = Object.fromEntries(
      Object.entries(properties).filter(([key]) => !fromPath.has(key) && !fromQuery.has(key)),
    );
    const bodyRequired = [...required].filter((key) => key in bodyProperties);
    const schema = { ...input, properties: bodyProperties, required: bodyRequired };
    operation.requestBody = { required: bodyRequired.length > 0, content: { 'application/json': { schema } } };
  }
  const answer = route.presented ? toRestSchema(route.presented, 'output') : toRestSchema(def.output, 'output');
  operation.responses = {
    [String(route.status ?? 200)]: { description: def.summary, content: { 'application/json': { schema: answer } } },
    ...failures(),
  };
  return operation;
}

/** Whether a route passes its body on to the contract (a marked body field comes through). */
function takesBody(route: Route): boolean {
  const probe = route.input(['a', 'b', 'c'], { bodyProbe: true }, new URLSearchParams()) as Record<string, unknown>;
  return probe !== null && typeof probe === 'object' && probe.bodyProbe === true;
}

function pick(from: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [key, from[key]]));
}

function failures(): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(FAILURES).map(([status, description]) => [
      status,
      { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    ]),
  );
}

/** A contract schema as JSON Schema 2020-12 with snake_case property names. */
export function toRestSchema(schema: z.core.$ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  return snakeSchema(json);
}

/** Renames property names only: keywords, enum values and patterns stay as they are. */
function snakeSchema(node: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...node };
  if (isRecord(node.properties)) {
    out.properties = Object.fromEntries(
      Object.entries(node.properties).map(([key, inner]) => [snake(key), snakeSchema(inner as JsonSchema)]),
    );
  }
  if (Array.isArray(node.required)) out.required = (node.required as string[]).map(snake);
  for (const key of ['items', 'additionalProperties', 'not', 'propertyNames'] as const) {
    if (isRecord(node[key])) out[key] = snakeSchema(node[key] as JsonSchema);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) {
    if (Array.isArray(node[key])) out[key] = (node[key] as JsonSchema[]).map(snakeSchema);
  }
  for (const key of ['$defs', 'definitions'] as const) {
    if (isRecord(node[key]))
      out[key] = Object.fromEntries(
        Object.entries(node[key]).map(([name, inner]) => [name, snakeSchema(inner as JsonSchema)]),
      );
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
