// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/svelte';
import { answerChoices, offers } from '../../lib/permission-answers.js';
import { readPanelKey } from '../../lib/permission-keys.js';
import { arm, key, panel, request, settle, usePanelFixture } from './panel-test-kit.js';

const setUp = usePanelFixture();

const network = (id: string) =>
  request(id, {
    command: 'connect to api.example.com:443',
    visibleCommand: 'connect to api.example.com:443',
    programGrant: null,
    background: true,
    sandbox: 'inside',
    network: { host: 'api.example.com', port: 443 },
    reason: 'a sandboxed command wants to connect to api.example.com:443, which the sandbox does not allow',
  });
const outside = (id: string) =>
  request(id, { command: 'npm publish', programGrant: null, sandbox: 'outside', reason: 'it asks to run outside' });

const answerIds = () =>
  screen
    .getAllByRole('button')
    .map((element) => element.dataset.testid)
    .filter((id) => id?.startsWith('permission-'));

describe('PermissionPanel: sandbox requests', () => {
  it('a connection says exactly what it needs and offers once, this host for the session, or reject', async () => {
    const { arrive } = await setUp();
    arrive(network('r1'));
    expect(screen.getByTestId('permission-title').textContent).toBe('Allow this connection?');
    expect(screen.getByTestId('permission-sandbox-need').textContent?.replace(/\s+/g, ' ').trim()).toBe(
      'A sandboxed command wants to connect to api.example.com:443',
    );
    expect(screen.queryByTestId('permission-command')).toBeNull();
    expect(screen.queryByTestId('permission-background')).toBeNull();
    expect(answerIds()).toEqual(['permission-allow', 'permission-allow-host', 'permission-reject']);
    expect(screen.getByTestId('permission-allow').textContent).toContain('Allow once');
    expect(screen.getByTestId('permission-allow-host').textContent).toContain('Allow this host for the session');
    expect(screen.getByTestId('permission-allow-host').getAttribute('aria-keyshortcuts')).toBe('Alt+H');
    expect(screen.getByTestId('permission-announcement').textContent).toContain(
      'A sandboxed command wants to connect to api.example.com:443',
    );
  });

  it('Alt+H allows the host of a connection; Alt+S and Alt+P answer nothing there', async () => {
    const { arrive, answerPermission } = await setUp();
    arrive(network('r1'));
    for (const letter of ['s', 'p']) {
      arm();
      key(panel(), { key: letter, code: `Key${letter.toUpperCase()}`, altKey: true });
      // Not an answer of this request: typed at the panel for something else, so the answers disarm.
      expect(panel().dataset.armed).toBe('false');
    }
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
    arm();
    expect(key(panel(), { key: 'h', code: 'KeyH', altKey: true })).toBe(false);
    await settle();
    expect(answerPermission).toHaveBeenCalledExactlyOnceWith(
      expect.objectContaining({ requestId: 'r1', answer: 'allow_host' }),
    );
  });

  it('a command leaving the sandbox offers only once outside the sandbox, or reject; Alt+S, Alt+P and Alt+H do nothing', async () => {
    const { arrive, answerPermission } = await setUp();
    arrive(outside('r1'));
    expect(screen.getByTestId('permission-title').textContent).toBe('Run outside the sandbox?');
    expect(screen.getByTestId('permission-sandbox-need').textContent).toContain(
      'wants to run this outside the sandbox',
    );
    expect(screen.getByTestId('permission-command').textContent).toBe('npm publish');
    expect(answerIds()).toEqual(['permission-allow', 'permission-reject']);
    expect(screen.getByTestId('permission-allow').textContent).toContain('Allow once outside the sandbox');
    for (const letter of ['s', 'p', 'h']) {
      arm();
      key(panel(), { key: letter, code: `Key${letter.toUpperCase()}`, altKey: true });
    }
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
    arm();
    key(panel(), { key: 'a', code: 'KeyA', altKey: true });
    await settle();
    expect(answerPermission).toHaveBeenCalledExactlyOnceWith(
      expect.objectContaining({ requestId: 'r1', answer: 'allow' }),
    );
  });

  it('a command inside the sandbox says so, and keeps the usual answers; Alt+H answers nothing there', async () => {
    const { arrive, answerPermission } = await setUp();
    arrive(request('r1', { sandbox: 'inside' }));
    expect(screen.getByTestId('permission-title').textContent).toBe('Allow this command?');
    expect(screen.getByTestId('permission-sandbox-note').textContent).toBe('runs in the sandbox');
    expect(screen.queryByTestId('permission-sandbox-need')).toBeNull();
    expect(answerIds()).toEqual([
      'permission-allow',
      'permission-allow-always',
      'permission-allow-program',
      'permission-reject',
    ]);
    arm();
    key(panel(), { key: 'h', code: 'KeyH', altKey: true });
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
  });

  it('without a sandbox nothing about one is said', async () => {
    const { arrive } = await setUp();
    arrive(request('r1'));
    expect(screen.queryByTestId('permission-sandbox-note')).toBeNull();
    expect(screen.queryByTestId('permission-sandbox-need')).toBeNull();
  });
});

describe('permission answers and their letters', () => {
  it('each answer has its own letter, and a chord is read as an answer only where the request offers it', () => {
    for (const one of [network('r1'), outside('r2'), request('r3'), request('r4', { planMode: true })]) {
      const letters = answerChoices(one).map((choice) => choice.letter);
      expect(new Set(letters).size).toBe(letters.length);
      for (const letter of ['a', 's', 'p', 'h', 'r']) {
        const read = readPanelKey(
          { key: letter, altKey: true, ctrlKey: false, metaKey: false, shiftKey: false },
          'panel',
          false,
          false,
          (answer) => offers(one, answer),
        );
        const offered = answerChoices(one).find((choice) => choice.letter === letter);
        expect(read).toEqual(offered ? { kind: 'answer', answer: offered.answer } : { kind: 'typing' });
      }
    }
  });
});
