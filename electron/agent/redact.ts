/**
 * Takes API keys out of text that may quote them: a server's error, or a client library's
 * ("Headers.append: "Bearer sk-…" is an invalid header value."). The whole key, and each piece
 * of it between spaces or control characters (a message may have flattened those), then any
 * Bearer credential and anything shaped like a provider key.
 */
export function redactKey(text: string, apiKey: string | null): string {
  let out = text;
  if (apiKey) {
    const pieces = apiKey.split(/[\s\u0000-\u001f\u007f-\u009f]+/).filter((piece) => piece.length >= 4);
    for (const piece of [apiKey, ...pieces]) if (piece.length >= 4) out = out.split(piece).join('[the key]');
  }
  out = out.replace(/\bBearer\s+(?!\[the key\])[^\s"'`,;]+/gi, 'Bearer [the key]');
  out = out.replace(/\b(sk|key|rk|pk)-[A-Za-z0-9_*.-]{6,}/g, '[a key]');
  return out;
}
