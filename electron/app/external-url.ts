/**
 * What the desktop app hands to the OS for a link the page opens: web links as they are, mail
 * links with only the fields a message needs (to, subject, body, cc, bcc; never `attach=`, which
 * some mail programs have honoured, or anything else a reply's link could smuggle), nothing else.
 * Plain Node (no Electron import), so it is tested as it is.
 */
const MAIL_FIELDS = new Set(['subject', 'body', 'cc', 'bcc']);

export function externalUrl(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') return url.href;
  if (url.protocol !== 'mailto:') return null;
  const kept = new URLSearchParams();
  for (const [name, value] of url.searchParams) if (MAIL_FIELDS.has(name.toLowerCase())) kept.append(name, value);
  const query = kept.toString();
  return `mailto:${url.pathname}${query ? `?${query}` : ''}`;
}
