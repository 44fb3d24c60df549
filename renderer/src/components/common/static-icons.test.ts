// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from '@testing-library/svelte';
import { Icon } from '@lucide/svelte';
import CircleCheck from '@lucide/svelte/icons/circle-check';
import Plus from '@lucide/svelte/icons/plus';
import X from '@lucide/svelte/icons/x';
import type { Component } from 'svelte';

/**
 * The build compiles every lucide icon from static markup (scripts/static-icons.ts, in the
 * renderer's Vite and vitest configs). Each icon must render exactly what lucide's own Icon
 * renders from the same icon file's data, for every prop the app passes and the others lucide
 * knows.
 */

afterEach(cleanup);

// The icon files as the package ships them: their data is what lucide's Icon is given below.
const FILES = import.meta.glob('../../../../node_modules/@lucide/svelte/dist/icons/{plus,x,circle-check}.svelte', {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>;

function iconData(name: string): unknown {
  const file = Object.entries(FILES).find(([path]) => path.endsWith(`/${name}.svelte`))?.[1];
  const found = file && /const iconData = (\{.*\});/.exec(file);
  if (!found) throw new Error(`no data for ${name}`);
  return JSON.parse(found[1]!);
}

type AnyIcon = Component<Record<string, unknown>>;

function rendered(component: AnyIcon, props: Record<string, unknown>) {
  const { container } = render(component, { props });
  const svg = container.querySelector('svg');
  if (!svg) throw new Error('no svg');
  return {
    attributes: Object.fromEntries([...svg.attributes].map((attribute) => [attribute.name, attribute.value])),
    classes: [...svg.classList],
    shapes: [...svg.children].map((child) => child.outerHTML),
  };
}

const ICONS: [string, AnyIcon][] = [
  ['plus', Plus as unknown as AnyIcon],
  ['x', X as unknown as AnyIcon],
  ['circle-check', CircleCheck as unknown as AnyIcon],
];

const PROPS: Record<string, unknown>[] = [
  {},
  { size: 13, 'aria-hidden': 'true' },
  { size: 14, class: 'icon' },
  { size: 20, color: 'red', strokeWidth: 1.5 },
  { size: 12, strokeWidth: 3, absoluteStrokeWidth: true },
  { 'aria-label': 'Close', role: 'img' },
  { width: 10, height: 30, 'data-testid': 'the-icon' },
];

describe('static lucide icons', () => {
  it('are what the build compiled (the plugin is in effect, so the comparison below means something)', () => {
    for (const [, component] of ICONS) expect(String(component)).toContain('lucideSvg');
    expect(String(Icon)).not.toContain('lucideSvg');
  });

  for (const [name, component] of ICONS) {
    for (const props of PROPS) {
      it(`${name} with ${JSON.stringify(props)} renders as lucide's Icon does`, () => {
        const ours = rendered(component, props);
        cleanup();
        const theirs = rendered(Icon as unknown as AnyIcon, { ...props, icon: iconData(name) });
        expect(ours.shapes.length).toBeGreaterThan(0);
        expect(ours.shapes).toEqual(theirs.shapes);
        expect(ours.classes).toEqual(theirs.classes);
        expect(ours.attributes).toEqual(theirs.attributes);
      });
    }
  }

  it('refuses nonScalingStroke, which the static markup does not carry', () => {
    expect(() => render(Plus as unknown as AnyIcon, { props: { nonScalingStroke: true } })).toThrow(/nonScalingStroke/);
  });
});
