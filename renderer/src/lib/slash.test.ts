import { describe, expect, it } from 'vitest';
import { loopArgs, slashMatches } from './slash.js';

describe('the composer’s slash commands', () => {
  it('offers /loop while a slash and letters are typed, not after a space or elsewhere', () => {
    expect(slashMatches('/').map((command) => command.name)).toEqual(['/loop']);
    expect(slashMatches('/lo').map((command) => command.name)).toEqual(['/loop']);
    expect(slashMatches('/LOOP').map((command) => command.name)).toEqual(['/loop']);
    expect(slashMatches('/loop ')).toEqual([]);
    expect(slashMatches('/x')).toEqual([]);
    expect(slashMatches('a /loop')).toEqual([]);
    expect(slashMatches('/usr/bin')).toEqual([]);
  });

  it('reads what follows /loop, empty for a bare one, and nothing for other text', () => {
    expect(loopArgs('/loop 5m check the deploy')).toBe('5m check the deploy');
    expect(loopArgs('  /loop  ')).toBe('');
    expect(loopArgs('/loop\ncheck it\nevery 2h')).toBe('check it\nevery 2h');
    expect(loopArgs('/loopy')).toBeNull();
    expect(loopArgs('please /loop')).toBeNull();
  });
});
