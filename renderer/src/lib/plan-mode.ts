/** The page-wide shortcut that turns plan mode on and off: Ctrl+Shift+P (⌘⇧P on macOS). */
export function isPlanShortcut(
  event: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey' | 'isComposing' | 'repeat'>,
  mac: boolean,
): boolean {
  if (event.isComposing || event.repeat || event.altKey || !event.shiftKey) return false;
  if (mac ? !event.metaKey || event.ctrlKey : !event.ctrlKey || event.metaKey) return false;
  return event.key.toLowerCase() === 'p';
}

export function planShortcutLabel(mac: boolean): string {
  return mac ? '⌘⇧P' : 'Ctrl+Shift+P';
}
