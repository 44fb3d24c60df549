import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// ajv validates JSON Schema 2020-12, the dialect of OpenAPI 3.1's schemas.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { openApiDocument } from '../../electron/ipc/openapi.js';
import { routes } from '../../electron/ipc/rest.js';

const doc = openApiDocument('1.2.3') as {
  openapi: string;
  paths: Record<string, Record<string, any>>;
  components: any;
};
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema({ $id: 'drover', components: doc.components }, 'drover');

/** The document's operation for a concrete method and path, found through the route table's own patterns. */
function operationFor(method: string, path: string): any {
  const route = routes.find((candidate) => candidate.method === method && candidate.pattern.test(path));
  if (path === '/api/openapi.json') return doc.paths[path]!.get;
  expect(route, `${method} ${path} is a REST route`).toBeDefined();
  const entry = Object.entries(doc.paths).find(([, ops]) => ops[method.toLowerCase()]?.operationId === route!.request);
  expect(entry, `${route!.request} is in the document`).toBeDefined();
  return entry![1][method.toLowerCase()];
}

function check(schema: object, value: unknown, what: string): void {
  // Refs point into components; resolve them against the document registered above.
  const text = JSON.stringify(schema).replaceAll('"#/components/', '"drover#/components/');
  const validate = ajv.compile(JSON.parse(text));
  expect(validate(value), `${what}: ${ajv.errorsText(validate.errors)}`).toBe(true);
}

const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
const restSection = readme.slice(
  readme.indexOf('## REST API'),
  readme.indexOf('\n## ', readme.indexOf('## REST API') + 5),
);

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 and holds every REST route with its method', () => {
    expect(doc.openapi).toBe('3.1.0');
    for (const route of routes) {
      const found = Object.values(doc.paths).some(
        (ops) => ops[route.method.toLowerCase()]?.operationId === route.request,
      );
      expect(found, `${route.method} ${route.request}`).toBe(true);
    }
    expect(doc.paths['/api/sessions/{session_id}/background-tasks/{task_id}']?.get?.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'tail', in: 'query' }),
        expect.objectContaining({ name: 'task_id', in: 'path' }),
      ]),
    );
  });

  it('speaks snake_case and refuses unknown body fields, as the host does', () => {
    const body = operationFor('POST', '/api/sessions/s1/background-tasks').requestBody.content['application/json']
      .schema;
    expect(Object.keys(body.properties)).toEqual(
      expect.arrayContaining(['command', 'timeout_seconds', 'notify_on_finish']),
    );
    expect(body.properties).not.toHaveProperty('session_id');
    expect(body.additionalProperties).toBe(false);
    check(body, { command: 'make', timeout_seconds: 5 }, 'a good body');
    expect(ajv.compile(body)({ command: 'make', bogus: 1 })).toBe(false);
  });

  it("validates every body and sample answer shown in README's REST API section", () => {
    let checked = 0;
    // The table: "| `METHOD /api/path` | body | answer |"; every backticked JSON object in the body cell is an example.
    for (const line of restSection.split('\n')) {
      const row = /^\| `(GET|POST|PUT|PATCH|DELETE) (\/api\/[^`?]*)[^`]*` \| (.*?) \| /.exec(line);
      if (!row) continue;
      const path = row[2]!.replace(/\{[^}]+\}/g, 'x1');
      const operation = operationFor(row[1]!, path);
      for (const [, span] of row[3]!.matchAll(/`(\{"[^`]*)`/g)) {
        check(
          operation.requestBody.content['application/json'].schema,
          JSON.parse(span!),
          `${row[1]} ${row[2]} body ${span}`,
        );
        checked++;
      }
    }
    // Fenced examples: curl lines (a body after -d), each ```json block answering the last curl before it.
    const blocks = [...restSection.matchAll(/([^`]*)```(sh|json)\n([\s\S]*?)```/g)];
    let lastCurl: { method: string; path: string } | undefined;
    for (const [, before, kind, text] of blocks) {
      if (kind === 'sh') {
        for (const curl of text!.split('\n').filter((line) => line.startsWith('curl '))) {
          const body = /-d '([^']*)'/.exec(curl)?.[1];
          const method = /-X (\w+)/.exec(curl)?.[1] ?? (body ? 'POST' : 'GET');
          const path = /https?:\/\/[^/\s]+(\/api\/[^\s?]*)/.exec(curl)![1]!;
          lastCurl = { method, path };
          const operation = operationFor(method, path);
          if (body) {
            // An example of a refused body is still JSON the document describes field by field.
            const value = JSON.parse(body);
            if (!('timeoutSeconds' in value))
              check(operation.requestBody.content['application/json'].schema, value, `curl body ${body}`);
            checked++;
          }
        }
      } else {
        const status = /(\d{3})\)?:?\s*$/.exec(before!.trim())?.[1];
        expect(status, `the status a README answer is for: ${before}`).toBeDefined();
        const response = operationFor(lastCurl!.method, lastCurl!.path).responses[status!];
        check(
          response.content['application/json'].schema,
          JSON.parse(text!),
          `answer ${status} to ${lastCurl!.method} ${lastCurl!.path}`,
        );
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(8);
  });
});
