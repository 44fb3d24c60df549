// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { PanelFocus } from './panel-focus.js';

// jsdom has no CSS.escape; the ids here need no escaping.
globalThis.CSS ??= { escape: (value: string) => value } as unknown as typeof CSS;

function page(): { root: HTMLElement; card: HTMLElement; finished: HTMLElement; outside: HTMLElement } {
  document.body.innerHTML = `
    <div id="root">
      <p id="outside">transcript text</p>
      <aside data-testid="tasks-panel"><h2>Tasks</h2>
        <ul id="running"><li data-task-id="bg_1"><button>Stop</button></li></ul>
        <ul id="finished"></ul>
      </aside>
    </div>`;
  const root = document.getElementById('root')!;
  return {
    root,
    card: root.querySelector('#running li')!,
    finished: root.querySelector('#finished')!,
    outside: root.querySelector('#outside')!,
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

afterEach(() => {
  document.body.innerHTML = '';
});

describe('PanelFocus.watch', () => {
  it("moves the focus to the task's new place when what held it goes away (a stopped card moving to Finished)", async () => {
    const { root, card, finished } = page();
    const stop = new PanelFocus(
      () => root,
      () => undefined,
    ).watch();
    card.querySelector('button')!.focus();
    card.remove();
    finished.innerHTML = '<li data-task-id="bg_1"><button id="row">echo</button></li>';
    await settle();
    expect(document.activeElement?.id).toBe('row');
    stop();
  });

  it('falls back to the heading, never the page body', async () => {
    const { root, card } = page();
    const stop = new PanelFocus(
      () => root,
      () => undefined,
    ).watch();
    card.querySelector('button')!.focus();
    card.remove();
    await settle();
    expect(document.activeElement?.tagName).toBe('H2');
    stop();
  });

  it('leaves the focus alone after the person pressed elsewhere', async () => {
    const { root, card, outside } = page();
    const stop = new PanelFocus(
      () => root,
      () => undefined,
    ).watch();
    card.querySelector('button')!.focus();
    outside.dispatchEvent(new Event('pointerdown', { bubbles: true }));
    (document.activeElement as HTMLElement).blur();
    card.remove();
    await settle();
    expect(document.activeElement).toBe(document.body);
    stop();
  });
});
