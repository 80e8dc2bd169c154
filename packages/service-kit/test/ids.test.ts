import { describe, expect, it } from '@jest/globals';
import { newId } from '../src/data/ids.js';

describe('newId', () => {
  it('gives 21 letters and digits, never a leading dash, and no repeats', () => {
    const ids = Array.from({ length: 20_000 }, () => newId());
    for (const id of ids) expect(id).toMatch(/^[0-9A-Za-z]{21}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // Every character of the alphabet shows up as a first character (it is uniform).
    expect(new Set(ids.map((id) => id[0])).size).toBe(62);
  });
});
