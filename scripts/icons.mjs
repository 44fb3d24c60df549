// `node scripts/icons.mjs`: every platform's icon from the one source, build/icon.svg.
//
// Writes build/icon.png (1024 px: the macOS source and the tray/window icon at run time),
// build/icon.icns (macOS), build/icon.ico (Windows, 16 to 256 px), build/icons/NxN.png (Linux),
// and build/icon-manifest.json, which records the SVG's hash and every output's hash so that
// test/release/icons.test.ts fails when the SVG changes and this script has not been run again.
//
// electron-builder 26 can convert one PNG or SVG itself, but only by downloading its "icons"
// toolset at build time, and for Linux it then ships the single large PNG (or the bare SVG) instead
// of a set of sizes. Generating here keeps the installers' icons reviewable, reproducible and
// tested. The SVG is rasterised by Chromium at each size (through Playwright, already a dev
// dependency; DROVER_CHROMIUM names the browser, else Debian's /usr/bin/chromium), which draws
// small sizes sharper than scaling a large PNG down.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium } from '@playwright/test';

const root = resolve(import.meta.dirname, '..');
const build = join(root, 'build');
const SOURCE = 'icon.svg';

/** Sizes the desktop environments look for under hicolor/NxN/apps. */
export const LINUX_SIZES = [16, 24, 32, 48, 64, 128, 256, 512];
/** Windows picks from these for the taskbar, Explorer's views and the installer; 256 is the largest it reads. */
export const ICO_SIZES = [16, 24, 32, 48, 64, 128, 256];
/** The icns element types, each holding a PNG of the given size (PNG payloads need macOS 10.7 or later). */
export const ICNS_TYPES = [
  ['icp4', 16],
  ['icp5', 32],
  ['icp6', 64],
  ['ic07', 128],
  ['ic08', 256],
  ['ic09', 512],
  ['ic10', 1024],
  ['ic11', 32],
  ['ic12', 64],
  ['ic13', 256],
  ['ic14', 512],
];

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** An ICO file whose images are PNGs (Windows Vista and later read them; a 0 in the directory means 256). */
export function icoFrom(pngs) {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(pngs.length, 4);
  const directory = Buffer.alloc(16 * pngs.length);
  let offset = header.length + directory.length;
  pngs.forEach(({ size, png }, index) => {
    const at = index * 16;
    directory.writeUInt8(size >= 256 ? 0 : size, at);
    directory.writeUInt8(size >= 256 ? 0 : size, at + 1);
    directory.writeUInt8(0, at + 2);
    directory.writeUInt8(0, at + 3);
    directory.writeUInt16LE(1, at + 4);
    directory.writeUInt16LE(32, at + 6);
    directory.writeUInt32LE(png.length, at + 8);
    directory.writeUInt32LE(offset, at + 12);
    offset += png.length;
  });
  return Buffer.concat([header, directory, ...pngs.map(({ png }) => png)]);
}

/** An icns file: 'icns', the total length, then (type, length including the 8-byte header, data) per image. */
export function icnsFrom(elements) {
  const parts = elements.map(({ type, png }) => {
    const head = Buffer.alloc(8);
    head.write(type, 0, 'ascii');
    head.writeUInt32BE(png.length + 8, 4);
    return Buffer.concat([head, png]);
  });
  const head = Buffer.alloc(8);
  head.write('icns', 0, 'ascii');
  head.writeUInt32BE(8 + parts.reduce((sum, part) => sum + part.length, 0), 4);
  return Buffer.concat([head, ...parts]);
}

async function rasterise(svg, sizes) {
  const browser = await chromium.launch({
    executablePath: process.env.DROVER_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const page = await browser.newPage({ deviceScaleFactor: 1 });
    const source = `data:image/svg+xml;base64,${svg.toString('base64')}`;
    const pngs = new Map();
    for (const size of sizes) {
      await page.setViewportSize({ width: size, height: size });
      await page.setContent(
        `<html><body style="margin:0;background:transparent"><img id="icon" src="${source}" width="${size}" height="${size}"></body></html>`,
      );
      await page.locator('#icon').evaluate((img) => img.decode());
      pngs.set(size, await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } }));
    }
    return pngs;
  } finally {
    await browser.close();
  }
}

async function main() {
  const svg = readFileSync(join(build, SOURCE));
  const sizes = [...new Set([...LINUX_SIZES, ...ICO_SIZES, ...ICNS_TYPES.map(([, size]) => size)])].sort(
    (a, b) => a - b,
  );
  const png = await rasterise(svg, sizes);
  const at = (size) => png.get(size);

  const outputs = new Map();
  outputs.set('icon.png', at(1024));
  outputs.set('icon.ico', icoFrom(ICO_SIZES.map((size) => ({ size, png: at(size) }))));
  outputs.set('icon.icns', icnsFrom(ICNS_TYPES.map(([type, size]) => ({ type, png: at(size) }))));
  for (const size of LINUX_SIZES) outputs.set(`icons/${size}x${size}.png`, at(size));

  rmSync(join(build, 'icons'), { recursive: true, force: true });
  mkdirSync(join(build, 'icons'));
  const files = {};
  for (const [name, bytes] of outputs) {
    writeFileSync(join(build, name), bytes);
    files[name] = sha256(bytes);
  }
  const manifest = { source: SOURCE, sourceSha256: sha256(svg), files };
  writeFileSync(join(build, 'icon-manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(`wrote ${outputs.size} icons from build/${SOURCE}`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) await main();
