/**
 * xterm's DOM renderer writes its colours and row sizes into <style> elements, which the
 * strict CSP (style-src 'self') refuses. CSSOM is allowed: mirror each <style> inside `root`
 * (call after `terminal.open`) into a constructed stylesheet adopted by the document, and
 * keep it current as xterm rewrites it. The first write, inside `open`, is still refused (and
 * logged) before this can run. Returns a function that stops.
 */
export function mirrorXtermStyles(root: HTMLElement): () => void {
  const doc = root.ownerDocument;
  if (
    typeof CSSStyleSheet === 'undefined' ||
    !('replaceSync' in CSSStyleSheet.prototype) ||
    !('adoptedStyleSheets' in doc)
  ) {
    return () => {};
  }
  const pairs = [...root.querySelectorAll('style')].map((element) => ({ element, sheet: new CSSStyleSheet() }));
  const ours = new Set(pairs.map((pair) => pair.sheet));
  const sync = () => {
    for (const { element, sheet } of pairs) sheet.replaceSync(element.textContent ?? '');
  };
  sync();
  // Detached, xterm's later rewrites of them no longer trip the CSP (the observer still sees them).
  for (const { element } of pairs) element.remove();
  doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, ...ours];
  const observer = new MutationObserver(sync);
  for (const { element } of pairs) observer.observe(element, { childList: true, subtree: true, characterData: true });
  return () => {
    observer.disconnect();
    doc.adoptedStyleSheets = doc.adoptedStyleSheets.filter((sheet) => !ours.has(sheet));
  };
}
