import { afterEach } from 'vitest';
import { tempDir } from '../helpers.js';
import { HostCase } from './fault-kit.js';

/** A maker of host cases for one test file: each on a fresh folder, each closed (and checked) after its test. */
export function hostCases(): () => HostCase {
  const cases: HostCase[] = [];
  afterEach(async () => {
    for (const open of cases.splice(0)) await open.close();
  });
  return () => {
    const made = new HostCase(tempDir('drover-fault-'));
    cases.push(made);
    return made;
  };
}
