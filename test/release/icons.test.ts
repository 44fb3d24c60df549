import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Every platform's icon comes from build/icon.svg through scripts/icons.mjs, which records the
// SVG's hash and each output's hash in build/icon-manifest.json.
const root = resolve(import.meta.dirname, '..', '..');
const build = join(root, 'build');
const manifest = JSON.parse(readFileSync(join(build, 'icon-manifest.json'), 'utf8')) as {
  source: string;
  sourceSha256: string;
  files: Record<string, string>;
};
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A PNG's width and height from its IHDR chunk, after checking the signature. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8).equals(PNG_SIGNATURE), 'a PNG').toBe(true);
  expect(bytes.toString('ascii', 12, 16)).toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** The images of an ICO file: the size its directory states and the PNG it holds. */
function icoImages(bytes: Buffer): { size: number; png: Buffer }[] {
  expect(bytes.readUInt16LE(0)).toBe(0);
  expect(bytes.readUInt16LE(2)).toBe(1);
  const count = bytes.readUInt16LE(4);
  return Array.from({ length: count }, (_, index) => {
    const at = 6 + index * 16;
    const length = bytes.readUInt32LE(at + 8);
    const offset = bytes.readUInt32LE(at + 12);
    return { size: bytes.readUInt8(at) || 256, png: bytes.subarray(offset, offset + length) };
  });
}

/** The elements of an icns file: type and payload. */
function icnsElements(bytes: Buffer): Map<string, Buffer> {
  expect(bytes.toString('ascii', 0, 4)).toBe('icns');
  expect(bytes.readUInt32BE(4)).toBe(bytes.length);
  const elements = new Map<string, Buffer>();
  for (let at = 8; at < bytes.length;) {
    const length = bytes.readUInt32BE(at + 4);
    expect(length).toBeGreaterThan(8);
    elements.set(bytes.toString('ascii', at, at + 4), bytes.subarray(at + 8, at + length));
    at += length;
  }
  return elements;
}

describe('the icons', () => {
  it('come from build/icon.svg as it is now (else run node scripts/icons.mjs)', () => {
    expect(manifest.source).toBe('icon.svg');
    expect(sha256(readFileSync(join(build, manifest.source)))).toBe(manifest.sourceSha256);
  });

  it('are the files the script wrote, none edited by hand and none missing', () => {
    for (const [name, hash] of Object.entries(manifest.files))
      expect(sha256(readFileSync(join(build, name))), name).toBe(hash);
    const linux = readdirSync(join(build, 'icons')).map((name) => `icons/${name}`);
    expect(Object.keys(manifest.files)).toEqual(expect.arrayContaining(linux));
  });

  it('give macOS a 1024 px icon.png and an icns from 16 to 1024 px', () => {
    expect(pngSize(readFileSync(join(build, 'icon.png')))).toEqual({ width: 1024, height: 1024 });
    const elements = icnsElements(readFileSync(join(build, 'icon.icns')));
    const expected: [string, number][] = [
      ['icp4', 16],
      ['icp5', 32],
      ['ic07', 128],
      ['ic08', 256],
      ['ic09', 512],
      ['ic10', 1024],
    ];
    for (const [type, size] of expected) {
      const payload = elements.get(type);
      expect(payload, type).toBeDefined();
      expect(pngSize(payload!)).toEqual({ width: size, height: size });
    }
  });

  it('give Windows an ico with every size from 16 to 256 px', () => {
    const images = icoImages(readFileSync(join(build, 'icon.ico')));
    expect(images.map((image) => image.size)).toEqual(expect.arrayContaining([16, 24, 32, 48, 64, 128, 256]));
    for (const image of images) expect(pngSize(image.png)).toEqual({ width: image.size, height: image.size });
  });

  it('give Linux a PNG per size, named NxN.png as electron-builder reads them', () => {
    const sizes = readdirSync(join(build, 'icons'))
      .map((name) => {
        const match = /^(\d+)x(\d+)\.png$/.exec(name);
        expect(match, name).not.toBeNull();
        const { width, height } = pngSize(readFileSync(join(build, 'icons', name)));
        expect([width, height]).toEqual([Number(match![1]), Number(match![2])]);
        return width;
      })
      .sort((a, b) => a - b);
    expect(sizes).toEqual(expect.arrayContaining([16, 32, 48, 64, 128, 256, 512]));
  });
});
