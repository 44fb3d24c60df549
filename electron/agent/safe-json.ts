/** A tool call's arguments as the model wrote them; unreadable ones read as none. */
export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
