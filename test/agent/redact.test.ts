import { describe, expect, it } from 'vitest';
import { redactKey } from '../../electron/agent/redact.js';
import { describeModelError } from '../../electron/agent/model-errors.js';
import { ProviderChangeSchema } from '../../shared/schemas/settings.js';

describe('keys never reach a page or the transcript', () => {
  it('takes out the key, and each piece of it a message flattened or split', async () => {
    const key = 'sk-abc123\nSECRETTAIL99';
    // What a client library says about a key with a newline in it, as this machine's fetch words it.
    const message = await fetch('http://127.0.0.1:9/', { headers: { Authorization: `Bearer ${key}` } }).then(
      () => 'no error',
      (error: Error) => error.message,
    );
    expect(message).toContain('SECRETTAIL99');
    const flattened = message.replace(/\s+/g, ' ');
    for (const text of [message, flattened]) {
      const shown = redactKey(text, key);
      expect(shown).not.toContain('SECRETTAIL99');
      expect(shown).not.toContain('abc123');
    }
  });

  it('takes out any Bearer credential and provider-shaped keys even without knowing the key', () => {
    expect(redactKey('Headers.append: "Bearer tok_9f8e7d6c5b" is an invalid header value.', null)).toBe(
      'Headers.append: "Bearer [the key]" is an invalid header value.',
    );
    expect(redactKey('bad key sk-ant-api03-abcdefghijkl', null)).toBe('bad key [a key]');
  });

  it("redacts a model error's note before it is stored", () => {
    const note = describeModelError(
      new TypeError('Headers.append: "Bearer sk-live-0123456789" is an invalid header value.'),
    );
    expect(note).not.toContain('0123456789');
  });

  it('refuses a key with a space, newline or control character, naming the field', () => {
    for (const apiKey of ['sk-abc def', 'sk-abc\n', 'sk-\u0000abc', ' sk-abc']) {
      const parsed = ProviderChangeSchema.safeParse({ kind: 'anthropic', model: 'm', apiKey });
      expect(parsed.success, JSON.stringify(apiKey)).toBe(false);
      expect(parsed.error?.issues[0]?.path).toEqual(['apiKey']);
    }
    expect(ProviderChangeSchema.safeParse({ kind: 'anthropic', model: 'm', apiKey: 'sk-ant-A_b.c-9' }).success).toBe(
      true,
    );
  });
});
