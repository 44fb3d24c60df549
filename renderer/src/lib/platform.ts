/** Apple's keyboards: the Command key where others use Control, Control where others use Alt. */
export function isMac(navigatorLike: { platform?: string; userAgent?: string }): boolean {
  return /mac|iphone|ipad/i.test(navigatorLike.platform || navigatorLike.userAgent || '');
}
