import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { downloadTaskLog } from './task-files.js';

const TICKET_URL = '/download/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

describe('downloadTaskLog', () => {
  let clicked: HTMLAnchorElement[];

  beforeEach(() => {
    sessionStorage.setItem('drover.token', 'secret-token');
    clicked = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this);
    });
  });

  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
    sessionStorage.clear();
  });

  it('asks for a ticket with the token in the header, then follows the ticket link (no body fetched)', async () => {
    const fetchMock = vi.fn(async () => Response.json({ url: TICKET_URL }));
    vi.stubGlobal('fetch', fetchMock);
    await downloadTaskLog('s 1', 'bg_7');
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [path, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(path).toBe('/api/sessions/s%201/background-tasks/bg_7/log-ticket');
    expect(init.method).toBe('POST');
    expect(init.headers).toEqual({ Authorization: 'Bearer secret-token' });
    expect(clicked).toHaveLength(1);
    const link = clicked[0]!;
    expect(link.getAttribute('href')).toBe(TICKET_URL);
    expect(link.href).not.toContain('secret-token');
    expect(link.download).toBe('bg_7.log');
    // The link is gone once clicked.
    expect(document.querySelector('a')).toBeNull();
  });

  it("shows the host's error when no ticket is issued, and downloads nothing", async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Response.json({ error: { code: 'not_found', message: 'No task bg_9' } }, { status: 404 })),
    );
    await expect(downloadTaskLog('s1', 'bg_9')).rejects.toThrow('No task bg_9');
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response('oops', { status: 502 })),
    );
    await expect(downloadTaskLog('s1', 'bg_9')).rejects.toThrow('The host answered 502');
    expect(clicked).toHaveLength(0);
  });
});
