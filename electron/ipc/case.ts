/** REST speaks snake_case (as the spec's HTTP surface does); the contract speaks camelCase. */

/** A body nested deeper than this is refused: no request of the contract needs more than a few levels. */
export const REST_MAX_DEPTH = 64;

/** A body the case conversion refuses: too deep, or one key in two spellings. */
export class KeyShapeError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = 'KeyShapeError';
  }
}

export function toSnakeKeys(value: unknown): unknown {
  return mapKeys(value, snake, Number.POSITIVE_INFINITY);
}

/**
 * Camel-cases every key of a REST body. Throws KeyShapeError when the body nests deeper than
 * `maxDepth`, or when one object holds the same key in two spellings (`timeoutSeconds` and
 * `timeout_seconds`): which one was meant cannot be known, so neither silently wins.
 */
export function toCamelKeys(value: unknown, maxDepth = REST_MAX_DEPTH): unknown {
  return mapKeys(value, camel, maxDepth);
}

export function snake(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

export function camel(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

type Container = Record<string, unknown> | unknown[];

/** Fields holding free key/value data: their keys are never renamed. */
const OPAQUE_FIELDS = new Set(['metadata']);
const isContainer = (value: unknown): value is Container => value !== null && typeof value === 'object';

/**
 * Copies a JSON value with its keys renamed. Iterative, with an explicit stack: JSON.parse
 * accepts nesting hundreds of thousands deep, and a recursive copy overflowed the call stack
 * on such a body (a 500 instead of a 400, issue #12).
 */
function mapKeys(root: unknown, rename: (key: string) => string, maxDepth: number): unknown {
  if (!isContainer(root)) return root;
  const top: Container = Array.isArray(root) ? [] : {};
  // Each entry links to its parent rather than copying its path, so deep input costs linear time.
  const stack: Frame[] = [{ from: root, to: top, depth: 1, name: null, parent: null }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const { from, to, depth } = frame;
    if (depth > maxDepth) {
      throw new KeyShapeError(`Body is nested deeper than ${maxDepth} levels`, pathOf(frame).join('.'));
    }
    const spelledAs = new Map<string, string>();
    for (const [key, inner] of Object.entries(from)) {
      const name = Array.isArray(from) ? key : rename(key);
      if (!Array.isArray(from)) {
        const earlier = spelledAs.get(name);
        if (earlier !== undefined) {
          throw new KeyShapeError(
            `"${earlier}" and "${key}" are two spellings of one field: send only one`,
            [...pathOf(frame), name].join('.'),
          );
        }
        spelledAs.set(name, key);
      }
      let copy = inner;
      // A field whose keys are the caller's own data (a work item's metadata) passes as it is, both ways.
      if (isContainer(inner) && !(OPAQUE_FIELDS.has(name) && !Array.isArray(from))) {
        copy = Array.isArray(inner) ? [] : {};
        stack.push({ from: inner, to: copy as Container, depth: depth + 1, name, parent: frame });
      }
      // defineProperty, not assignment: a key "__proto__" stays a plain key (for validation to refuse) instead of a prototype.
      Object.defineProperty(to, name, { value: copy, enumerable: true, writable: true, configurable: true });
    }
  }
  return top;
}

interface Frame {
  from: Container;
  to: Container;
  depth: number;
  name: string | null;
  parent: Frame | null;
}

function pathOf(frame: Frame): string[] {
  const path: string[] = [];
  for (let at: Frame | null = frame; at && at.name !== null; at = at.parent) path.push(at.name);
  return path.reverse();
}
