/** Apple's keyboards: the Command key where others use Control, Control where others use Alt. */
export function isMac(navigatorLike: { platform?: string; userAgent?: string }): boolean {
  return /mac|iphone|ipad/i.test(navigatorLike.platform || navigatorLike.userAgent || '');
}

/** Whose fonts the page can count on: it names its monospace family first where it is known to be there. */
export type FontPlatform = 'mac' | 'windows' | 'linux' | 'other';

export function fontPlatform(navigatorLike: { platform?: string; userAgent?: string }): FontPlatform {
  if (isMac(navigatorLike)) return 'mac';
  const name = navigatorLike.platform || navigatorLike.userAgent || '';
  if (/win/i.test(name)) return 'windows';
  if (/linux|x11|cros/i.test(name) && !/android/i.test(navigatorLike.userAgent ?? '')) return 'linux';
  return 'other';
}
