/**
 * Lucide's icons as static markup (issue 18: opening a big session). Each `@lucide/svelte/icons/NAME`
 * component renders through lucide's generic Icon: derived attribute objects, a keyed loop over
 * the icon's shapes and a dynamic element with spread attributes per shape. On a cold page that
 * machinery is compiled and run for every icon of the first screen. This build step gives each
 * icon file the same SVG as markup instead: Svelte clones it from a template, and only the
 * attributes a caller can change (size, colour, stroke, class and whatever else it passes) stay
 * dynamic. The icons' data still comes from the installed package, so an upgrade brings its
 * shapes; a file whose shape the step does not recognise stops the build, naming it.
 *
 * Hand-rolled, not a library: the plugins that turn icons into components (unplugin-icons and the
 * like) bring their own icon sets and a different component API, where this keeps lucide's.
 */
import type { Plugin } from 'vite';

/** An icon file of the package (its source path, with / or \ separators). */
const ICON_FILE = /[\\/]@lucide[\\/]svelte[\\/]dist[\\/]icons[\\/]([a-z0-9-]+)\.svelte$/;
/** The one line of an icon file that holds its data, as the package writes it. */
const ICON_DATA = /const iconData = (\{.*\});/;

type IconShape = [tag: string, attributes: Record<string, string | number>, children?: IconShape[]];
type IconNode = IconShape[];

interface IconData {
  name: string;
  /** Older names: each is a class too (lucide-check-circle beside lucide-circle-check). */
  aliases?: unknown[];
  size?: number;
  node: IconNode;
}

/** A value as an attribute in Svelte markup: quoted, with nothing Svelte or HTML would read as syntax. */
function markupValue(value: string | number): string {
  const text = String(value).replace(
    /[&"<>{}]/g,
    (c) => ({ '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;', '{': '&#123;', '}': '&#125;' })[c]!,
  );
  return `"${text}"`;
}

const TAG = /^[a-z][a-zA-Z0-9]*$/;
const ATTRIBUTE = /^[a-zA-Z][a-zA-Z0-9:-]*$/;

function shapes(node: IconNode, file: string): string {
  return node
    .map(([tag, attributes, children]) => {
      if (!TAG.test(tag)) throw new Error(`${file}: unexpected element <${tag}>`);
      const attrs = Object.entries(attributes).map(([name, value]) => {
        if (!ATTRIBUTE.test(name)) throw new Error(`${file}: unexpected attribute ${name}`);
        return ` ${name}=${markupValue(value)}`;
      });
      const open = `<${tag}${attrs.join('')}`;
      return children?.length ? `${open}>${shapes(children, file)}</${tag}>` : `${open} />`;
    })
    .join('');
}

/** The module every icon imports: the SVG element's attributes from its props, as lucide's Icon makes them. */
const HELPER_ID = 'virtual:drover-lucide-svg';
const HELPER_SOURCE = `
const NAMED = new Set(['size', 'width', 'height', 'color', 'strokeWidth', 'absoluteStrokeWidth', 'nonScalingStroke', 'class', 'children']);
export function lucideSvg(props, names, box) {
  if (props.nonScalingStroke) throw new Error('Drover builds lucide icons as static markup, without nonScalingStroke');
  const size = props.size ?? 24;
  const strokeWidth = props.strokeWidth ?? 2;
  const rest = {};
  let named = false;
  for (const key in props) {
    if (NAMED.has(key)) continue;
    rest[key] = props[key];
    if (key.startsWith('aria-') || key === 'role' || key === 'title') named = true;
  }
  return {
    xmlns: 'http://www.w3.org/2000/svg',
    width: props.width ?? size,
    height: props.height ?? size,
    viewBox: '0 0 ' + box + ' ' + box,
    fill: 'none',
    stroke: props.color ?? 'currentColor',
    'stroke-width': props.absoluteStrokeWidth ? (Number(strokeWidth) * box) / Number(size) : strokeWidth,
    'stroke-linecap': 'round',
    'stroke-linejoin': 'round',
    class: ['lucide', ...names.map((name) => 'lucide-' + name), 'lucide-icon', props.class],
    // Decorative (hidden from assistive technology) unless it was given a name, a role or content.
    'aria-hidden': named || props.children ? undefined : 'true',
    ...rest,
  };
}
`;

/**
 * The component for one icon file of @lucide/svelte: the SVG lucide's Icon would render, with
 * the same props (size, width, height, color, strokeWidth, absoluteStrokeWidth, class, children,
 * and any other attribute), the same classes, and aria-hidden unless the caller gave the icon an
 * accessible name or role. nonScalingStroke, which Drover does not use, is refused. Throws when
 * the file is not shaped as expected.
 */
export function staticIconSource(file: string, original: string): string {
  const found = ICON_DATA.exec(original);
  if (!found) throw new Error(`${file}: no iconData line; @lucide/svelte changed how it writes icons`);
  let data: IconData;
  try {
    data = JSON.parse(found[1]!) as IconData;
  } catch (error) {
    throw new Error(`${file}: its iconData is not JSON (${(error as Error).message})`, { cause: error });
  }
  if (typeof data.name !== 'string' || !ATTRIBUTE.test(data.name) || !Array.isArray(data.node)) {
    throw new Error(`${file}: its iconData has no name or no shapes`);
  }
  // Its name, then its aliases, each once, as lucide's classes list them.
  const names = [
    data.name,
    ...(data.aliases ?? []).filter((alias) => typeof alias === 'string' && alias.trim() !== ''),
  ];
  for (const name of names)
    if (!ATTRIBUTE.test(name as string)) throw new Error(`${file}: unexpected icon name ${String(name)}`);
  return `<script>
  import { lucideSvg } from '${HELPER_ID}';
  const props = $props();
  const svg = $derived(lucideSvg(props, ${JSON.stringify([...new Set(names)])}, ${Number(data.size ?? 24)}));
</script>

<svg {...svg}>${shapes(data.node, file)}{@render props.children?.()}</svg>
`;
}

/** Vite plugin: every icon file of @lucide/svelte is compiled from static markup (see above). */
export function staticIcons(): Plugin {
  return {
    name: 'drover-static-icons',
    // Before Svelte's compiler, which then compiles this source instead of the file's.
    enforce: 'pre',
    resolveId(id) {
      return id === HELPER_ID ? `\0${HELPER_ID}` : null;
    },
    load(id) {
      return id === `\0${HELPER_ID}` ? HELPER_SOURCE : null;
    },
    transform(code, id) {
      const match = ICON_FILE.exec(id.split('?')[0]!);
      if (!match || id.includes('?')) return null;
      return { code: staticIconSource(id, code), map: null };
    },
  };
}
