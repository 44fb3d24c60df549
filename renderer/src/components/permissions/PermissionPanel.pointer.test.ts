// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { fireEvent } from '@testing-library/svelte';
import {
  arm,
  button,
  key,
  panel,
  pointerDown,
  pointerUp,
  request,
  settle,
  composer,
  usePanelFixture,
} from './panel-test-kit.js';

const setUp = usePanelFixture();

describe('PermissionPanel clicks: an answer counts only for the press that began on it, for that request, armed', () => {
  it('a full press on an armed button answers', async () => {
    const { arrive, answerPermission } = await setUp();
    arrive(request('r1'));
    arm();
    pointerDown(button('permission-reject'));
    await pointerUp(button('permission-reject'));
    await settle();
    expect(answerPermission).toHaveBeenCalledExactlyOnceWith(
      expect.objectContaining({ requestId: 'r1', answer: 'reject' }),
    );
  });

  it('a press on request A, released after B replaced A and armed, answers nothing: B has fresh buttons', async () => {
    const { arrive, resolve, answerPermission } = await setUp();
    arrive(request('r1'), request('r2'));
    arm();
    const first = button('permission-allow');
    pointerDown(first);
    // Answered from another window meanwhile: B shows under the pointer still held down.
    resolve('r1');
    expect(panel().dataset.requestId).toBe('r2');
    expect(button('permission-allow')).not.toBe(first);
    expect(first.isConnected).toBe(false);
    arm();
    expect(panel().dataset.armed).toBe('true');
    await pointerUp(button('permission-allow'));
    // The click the browser might send to the old button, or to the group both sit in, answers nothing either.
    await fireEvent.click(first, { button: 0, detail: 1 });
    await fireEvent.click(panel().querySelector('[role="group"]')!, { button: 0, detail: 1 });
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
    // B's own press does.
    pointerDown(button('permission-allow'));
    await pointerUp(button('permission-allow'));
    await settle();
    expect(answerPermission).toHaveBeenCalledExactlyOnceWith(
      expect.objectContaining({ requestId: 'r2', answer: 'allow' }),
    );
  });

  it('a press that began outside the panel and ends on a button answers nothing', async () => {
    const { arrive, answerPermission } = await setUp();
    arrive(request('r1'));
    arm();
    for (const outside of [composer, document.body, panel()]) {
      pointerDown(outside);
      await pointerUp(button('permission-allow'));
    }
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
  });

  it('a press on one button released on another, or begun while disarmed, answers nothing', async () => {
    const { arrive, answerPermission } = await setUp();
    composer.focus();
    arrive(request('r1'));
    arm();
    pointerDown(button('permission-reject'));
    await pointerUp(button('permission-allow'));
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
    // Pressed during the arming, released once armed.
    key(composer, { key: 'h', code: 'KeyH' });
    pointerDown(button('permission-allow'));
    arm();
    await pointerUp(button('permission-allow'));
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
    // Pressed armed, disarmed by typing before the release.
    pointerDown(button('permission-allow'));
    key(composer, { key: 'h', code: 'KeyH' });
    await pointerUp(button('permission-allow'));
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
  });

  it('a focused button of a replaced request takes its focus with it: the frame gets it, and Enter there answers nothing', async () => {
    const { arrive, resolve, answerPermission } = await setUp();
    arrive(request('r1'), request('r2'));
    arm();
    key(panel(), { key: 'Tab', code: 'Tab', shiftKey: true });
    const focused = button('permission-reject');
    expect(document.activeElement).toBe(focused);
    resolve('r1');
    expect(panel().dataset.requestId).toBe('r2');
    expect(document.activeElement).toBe(panel());
    expect(button('permission-reject')).not.toBe(focused);
    expect(panel().dataset.armed).toBe('false');
    arm();
    key(panel(), { key: 'Enter', code: 'Enter' });
    await settle();
    expect(answerPermission).not.toHaveBeenCalled();
  });
});
