// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { fireEvent, screen } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import { ARM_MS } from '../../lib/state/arming.svelte.js';
import { arm, button, key, panel, request, settle, composer, usePanelFixture } from './panel-test-kit.js';

const setUp = usePanelFixture();

describe('PermissionPanel', () => {
  it('shows a request without taking the focus from a field being typed in, disarmed for a moment', async () => {
    const { arrive } = await setUp();
    composer.focus();
    arrive(request('r1'));
    expect(panel().dataset.requestId).toBe('r1');
    expect(document.activeElement).toBe(composer);
    expect(panel().getAttribute('aria-modal')).toBeNull();
    expect(button('permission-allow').getAttribute('aria-disabled')).toBe('true');
    expect(screen.getByTestId('permission-arming')).toBeTruthy();
    arm();
    expect(button('permission-allow').getAttribute('aria-disabled')).toBeNull();
    expect(screen.queryByTestId('permission-arming')).toBeNull();
    expect(screen.getByTestId('permission-announcement').textContent).toContain('ls -la');
  });

  it('takes the focus onto its frame, never an allowing button, when nobody is typing', async () => {
    const { arrive } = await setUp();
    arrive(request('r1'));
    expect(document.activeElement).toBe(panel());
  });

  it('never answers a plain letter, armed or not, wherever it is typed', async () => {
    const { arrive, answerPermission } = await setUp();
    composer.focus();
    arrive(request('r1'));
    for (const letter of ['a', 's', 'p', 'r', 'A', 'R', 'Enter']) {
      vi.advanceTimersByTime(ARM_MS);
      flushSync();
      key(composer, { key: letter, code: letter.length === 1 ? `Key${letter.toUpperCase()}` : letter });
      key(panel(), { key: letter, code: `Key${letter.toUpperCase()}` });
      key(document.body, { key: letter, code: `Key${letter.toUpperCase()}` });
    }
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
    expect(panel().dataset.requestId).toBe('r1');
  });

  it('disarms again on every key typed elsewhere: a click meant for something else answers nothing', async () => {
    const { arrive, answerPermission } = await setUp();
    composer.focus();
    arrive(request('r1'));
    arm();
    expect(panel().dataset.armed).toBe('true');
    key(composer, { key: 'h', code: 'KeyH' });
    expect(panel().dataset.armed).toBe('false');
    // A modifier on its own (Alt on its way to Alt+A) is no keystroke.
    vi.advanceTimersByTime(ARM_MS - 1);
    key(composer, { key: 'Alt', code: 'AltLeft', altKey: true });
    flushSync();
    expect(panel().dataset.armed).toBe('false');
    await fireEvent.click(button('permission-allow'));
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    flushSync();
    expect(panel().dataset.armed).toBe('true');
    // An Alt letter typed in the composer is the composer's: it answers nothing and counts as typing, the wait starts over.
    key(composer, { key: 'a', code: 'KeyA', altKey: true });
    vi.advanceTimersByTime(ARM_MS - 1);
    flushSync();
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
    expect(panel().dataset.armed).toBe('false');
    vi.advanceTimersByTime(1);
    flushSync();
    await fireEvent.click(button('permission-allow'));
    await settle();
    expect(answerPermission).toHaveBeenCalledExactlyOnceWith(
      expect.objectContaining({ requestId: 'r1', answer: 'allow' }),
    );
  });

  it('queues requests with a count; the next one arms afresh and takes no repeated key', async () => {
    const { arrive, answerPermission } = await setUp();
    composer.focus();
    arrive(request('r1'), request('r2'));
    expect(screen.getByTestId('permission-count').textContent).toBe('1 more waiting');
    key(composer, { key: 'F6', code: 'F6' });
    arm();
    key(panel(), { key: 's', code: 'KeyS', altKey: true });
    await settle();
    expect(answerPermission).toHaveBeenLastCalledWith(
      expect.objectContaining({ requestId: 'r1', answer: 'allow_always' }),
    );
    expect(panel().dataset.requestId).toBe('r2');
    expect(panel().dataset.armed).toBe('false');
    key(panel(), { key: 's', code: 'KeyS', altKey: true });
    await settle();
    expect(answerPermission).toHaveBeenCalledTimes(1);
  });

  it('offers Alt+P only with a program entry', async () => {
    const { arrive, answerPermission } = await setUp();
    arrive(request('r1', { programGrant: null }));
    arm();
    expect(screen.queryByTestId('permission-allow-program')).toBeNull();
    expect(key(panel(), { key: 'p', code: 'KeyP', altKey: true })).toBe(true);
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
    arm();
    key(panel(), { key: 'a', code: 'KeyA', altKey: true });
    await settle();
    expect(answerPermission).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ answer: 'allow' }));
  });

  it('in plan mode offers only allow once and reject, says so, and Alt+S or Alt+P answer nothing', async () => {
    const { arrive, answerPermission } = await setUp();
    arrive(request('r1', { planMode: true, programGrant: null }));
    arm();
    expect(screen.queryByTestId('permission-allow-always')).toBeNull();
    expect(screen.queryByTestId('permission-allow-program')).toBeNull();
    expect(screen.getByTestId('permission-plan-mode').textContent).toContain('plan mode');
    for (const letter of ['s', 'p']) key(panel(), { key: letter, code: `Key${letter.toUpperCase()}`, altKey: true });
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
    arm();
    key(panel(), { key: 'r', code: 'KeyR', altKey: true });
    await settle();
    expect(answerPermission).toHaveBeenCalledExactlyOnceWith(expect.objectContaining({ answer: 'reject' }));
  });

  it('F6 goes to the frame; Tab stays inside; Esc goes back where the focus came from, without answering', async () => {
    const { arrive, answerPermission } = await setUp();
    composer.focus();
    arrive(request('r1'));
    expect(screen.getByTestId('permission-keys').textContent).toContain('F6');
    expect(key(composer, { key: 'F6', code: 'F6' })).toBe(false);
    expect(document.activeElement).toBe(panel());
    key(panel(), { key: 'Tab', code: 'Tab' });
    expect(document.activeElement).toBe(button('permission-allow'));
    key(document.activeElement!, { key: 'Tab', code: 'Tab', shiftKey: true });
    expect(document.activeElement).toBe(button('permission-reject'));
    key(document.activeElement!, { key: 'Tab', code: 'Tab' });
    expect(document.activeElement).toBe(button('permission-allow'));
    key(document.activeElement!, { key: 'Escape', code: 'Escape' });
    expect(document.activeElement).toBe(composer);
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
    expect(panel().dataset.requestId).toBe('r1');
  });

  it('hands the focus to the composer when it had taken it itself and the person leaves or answers the last request', async () => {
    const { arrive, onLeave, answerPermission } = await setUp();
    arrive(request('r1'), request('r2'));
    expect(document.activeElement).toBe(panel());
    key(panel(), { key: 'Escape', code: 'Escape' });
    expect(onLeave).toHaveBeenCalledTimes(1);
    expect(document.activeElement).toBe(composer);
    // Back in by click: the answered request's successor gets the frame, the last answer gives the focus back.
    arm();
    button('permission-allow').focus();
    await fireEvent.click(button('permission-allow'));
    await settle();
    expect(panel().dataset.requestId).toBe('r2');
    expect(document.activeElement).toBe(panel());
    arm();
    button('permission-reject').focus();
    await fireEvent.click(button('permission-reject'));
    await settle();
    expect(answerPermission).toHaveBeenCalledTimes(2);
    expect(screen.queryByTestId('permission-modal')).toBeNull();
    expect(document.activeElement).toBe(composer);
  });

  it('names the background agent that asks, and says nothing of one when the session’s model asks', async () => {
    const { arrive, answerPermission } = await setUp();
    arrive(request('r1'), request('r2', { agent: { taskId: 'agt_3', name: 'researcher' } }));
    expect(screen.queryByTestId('permission-agent')).toBeNull();
    expect(screen.getByTestId('permission-announcement').textContent).toMatch(/^A command waits/);
    arm();
    key(panel(), { key: 'r', code: 'KeyR', altKey: true });
    await settle();
    expect(answerPermission).toHaveBeenCalledOnce();
    expect(panel().dataset.requestId).toBe('r2');
    expect(screen.getByTestId('permission-agent').textContent?.trim()).toBe('Asked by agent agt_3 (researcher)');
    expect(screen.getByTestId('permission-announcement').textContent).toContain(
      'A command from background agent agt_3 (researcher) waits for your answer',
    );
  });
});
