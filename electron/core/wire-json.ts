/**
 * JSON made once for values that never change and are sent again and again: a settled task's
 * rendered output (RenderedOutputs keeps it; up to 256 KiB of text) goes out with every read of
 * that task. Serialising it for each answer was most of the host's work under a flood of such reads
 * (1,000 `getTask` frames on one WebSocket: about 1.1 ms of JSON.stringify per answer, 1.15 s of the
 * flood's 1.5 s, in runs of the event loop long enough to keep other clients' requests waiting
 * 50 to 70 ms; issue 18). A kept value's UTF-8 JSON is made on its first send and reused by every
 * answer that carries it, for as long as the value lives.
 *
 * Only values nobody changes may be kept: keepWireJson freezes them.
 */

/** Kept values: their UTF-8 JSON once made, null until then. Gone with the value. */
const kept = new WeakMap<object, Buffer | null>();

/** Marks `value` (never to change again: it is frozen) as one whose JSON is made once and reused. */
export function keepWireJson<T extends object>(value: T): T {
  Object.freeze(value);
  if (!kept.has(value)) kept.set(value, null);
  return value;
}

/** The UTF-8 JSON of a kept value (made now if this is its first send); undefined for any other value. */
function keptJson(value: unknown): Buffer | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const made = kept.get(value);
  if (made === undefined) return undefined;
  if (made !== null) return made;
  const json = Buffer.from(JSON.stringify(value), 'utf8');
  kept.set(value, json);
  return json;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  Object.getPrototypeOf(value) === Object.prototype &&
  !('toJSON' in value);

/**
 * The text of a successful answer to call `id`: the same bytes as JSON.stringify of
 * `{ t: 'result', id, ok: true, value }` (keys in the same order, undefined members left out),
 * with the kept values among `value`'s own members copied in as they were made rather than
 * serialised again. A string when nothing in it is kept; else UTF-8 bytes, to be sent as text.
 */
export function resultFrameJson(id: number, value: unknown): string | Buffer {
  const frame = { t: 'result', id, ok: true, value };
  if (!isPlainObject(value)) return JSON.stringify(frame);
  const members = Object.entries(value);
  if (!members.some(([, member]) => kept.has(member as object))) return JSON.stringify(frame);
  const parts: Buffer[] = [];
  let text = `{"t":"result","id":${JSON.stringify(id)},"ok":true,"value":{`;
  let first = true;
  for (const [key, member] of members) {
    const json = keptJson(member);
    if (json === undefined) {
      // As JSON.stringify does: a member that has no JSON (undefined, a function) is left out.
      const own = JSON.stringify(member);
      if (own === undefined) continue;
      text += `${first ? '' : ','}${JSON.stringify(key)}:${own}`;
    } else {
      text += `${first ? '' : ','}${JSON.stringify(key)}:`;
      parts.push(Buffer.from(text, 'utf8'), json);
      text = '';
    }
    first = false;
  }
  parts.push(Buffer.from(`${text}}}`, 'utf8'));
  return Buffer.concat(parts);
}
