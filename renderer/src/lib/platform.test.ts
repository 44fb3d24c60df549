import { describe, expect, it } from 'vitest';
import { fontPlatform, isMac } from './platform.js';

describe('the platform the page runs on', () => {
  it('tells the fonts of Apple, Windows and Linux machines apart from the rest', () => {
    expect(fontPlatform({ platform: 'MacIntel' })).toBe('mac');
    expect(fontPlatform({ platform: 'Win32' })).toBe('windows');
    expect(fontPlatform({ platform: 'Linux x86_64' })).toBe('linux');
    expect(fontPlatform({ platform: '', userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/156' })).toBe('linux');
    expect(fontPlatform({ platform: 'Linux armv8l', userAgent: 'Mozilla/5.0 (Linux; Android 14)' })).toBe('other');
    expect(fontPlatform({ platform: 'FreeBSD amd64' })).toBe('other');
    expect(fontPlatform({})).toBe('other');
    expect(isMac({ platform: 'iPad' })).toBe(true);
  });
});
