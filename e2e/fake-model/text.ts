/** Small helpers shared by the two dialects. */

/** Splits a string into `parts` pieces by code point (fewer when it is shorter); empty input gives none. */
export function splitInto(value: string, parts: number): string[] {
  const chars = Array.from(value);
  if (chars.length === 0) return [];
  const count = Math.max(1, Math.min(parts, chars.length));
  const size = Math.ceil(chars.length / count);
  const out: string[] = [];
  for (let start = 0; start < chars.length; start += size) out.push(chars.slice(start, start + size).join(''));
  return out;
}

/** Rough token count: a token per four characters, at least one. */
export function tokenEstimate(value: string): number {
  return Math.max(1, Math.ceil(value.length / 4));
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Compact JSON, never throwing (cycles and BigInts fall back to String()). */
export function safeJson(value: unknown): string {
  try {
    const json = JSON.stringify(value);
    return json === undefined ? String(value) : json;
  } catch {
    return String(value);
  }
}

/**
 * Flattens message content as both APIs send it: a string, or an array of parts
 * (`{ type: 'text', text }` and friends). Non-text parts show as `[type]`.
 */
export function contentText(content: unknown): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => {
        if (typeof part === 'string') return part;
        if (isRecord(part)) {
          if (typeof part['text'] === 'string') return part['text'];
          if (typeof part['type'] === 'string') return `[${part['type']}]`;
        }
        return safeJson(part);
      })
      .join('\n');
  }
  return safeJson(content);
}
