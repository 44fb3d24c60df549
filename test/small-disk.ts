import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A tmpfs of its own, small enough to fill. Needs root (mount), as the containment tests do. */
export interface SmallDisk {
  root: string;
  data: string;
  /** Takes the disk's last free bytes (but `spareBytes`) with a file that `makeRoom` removes. */
  fill(spareBytes?: number): void;
  makeRoom(): void;
}

/** Mounts a `megabytes` tmpfs; `onCleanup` gets what unmounts and removes it. */
export function mountSmallDisk(megabytes: number, onCleanup: (cleanup: () => void) => void): SmallDisk {
  const root = mkdtempSync('/tmp/drover-full-');
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m,mode=0700`, 'tmpfs', root]);
  onCleanup(() => {
    execFileSync('umount', ['-l', root]);
    rmSync(root, { recursive: true, force: true });
  });
  const filler = join(root, 'filler');
  return {
    root,
    data: join(root, 'data'),
    fill(spareBytes = 0) {
      const { bavail, bsize } = statfsSync(root);
      const free = bavail * bsize;
      writeFileSync(filler, Buffer.alloc(Math.max(0, free - spareBytes)));
    },
    makeRoom() {
      rmSync(filler, { force: true });
    },
  };
}
