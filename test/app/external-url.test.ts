import { describe, expect, it } from 'vitest';
import { externalUrl } from '../../electron/app/external-url.js';

describe('links the desktop app opens outside', () => {
  it('passes web links as they are', () => {
    expect(externalUrl('https://example.com/a?b=1#c')).toBe('https://example.com/a?b=1#c');
    expect(externalUrl('http://127.0.0.1:3000/')).toBe('http://127.0.0.1:3000/');
  });

  it('keeps only the fields a mail needs, never attach=', () => {
    expect(externalUrl('mailto:a@example.com?subject=Hi&attach=~/.ssh/id_rsa&body=Yo&X-Header=1')).toBe(
      'mailto:a@example.com?subject=Hi&body=Yo',
    );
    expect(externalUrl('mailto:a@example.com')).toBe('mailto:a@example.com');
    expect(externalUrl('MAILTO:a@example.com?ATTACHMENT=/etc/passwd&CC=b@example.com')).toBe(
      'mailto:a@example.com?CC=b%40example.com',
    );
  });

  it('refuses every other scheme and what is not a URL', () => {
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share', 'ms-settings:', 'not a url']) {
      expect(externalUrl(url), url).toBeNull();
    }
  });
});
