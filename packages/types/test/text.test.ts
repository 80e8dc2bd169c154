// The text rules: characters are code points, text is well-formed Unicode, cuts keep
// user-perceived characters whole.
import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  AppName,
  PostChatMessageBody,
  SubmitAppBody,
  codePointLength,
  isWellFormedText,
  text,
  textLimits,
  truncateText,
} from '../src/index.js';

const FAMILY = '👩‍👩‍👧‍👦'; // 7 code points, one grapheme

describe('codePointLength', () => {
  it('counts a surrogate pair once and anything else per UTF-16 unit', () => {
    expect(codePointLength('')).toBe(0);
    expect(codePointLength('abc')).toBe(3);
    expect(codePointLength('😀'.repeat(200))).toBe(200);
    expect(codePointLength('𠮷𩸽é')).toBe(3);
    expect(codePointLength(FAMILY)).toBe(7);
    expect(codePointLength('\ud800x\udfff')).toBe(3);
  });
});

describe('isWellFormedText', () => {
  it('refuses an unpaired surrogate wherever it is, pairs are fine', () => {
    for (const bad of ['\ud800', '\udfff', 'a\udc00\ud800b', 'x\ud83d']) expect(isWellFormedText(bad)).toBe(false);
    for (const good of ['', 'plain', '😀', '𠮷 𩸽', FAMILY, '\u202eRTL\u200f']) expect(isWellFormedText(good)).toBe(true);
  });
});

describe('truncateText', () => {
  it('leaves text within the limit as it is', () => {
    expect(truncateText('😀😀', 2)).toBe('😀😀');
    expect(truncateText('abc', 3, '…')).toBe('abc');
  });

  it('cuts between graphemes, never inside a pair, a sequence or a combining mark', () => {
    expect(truncateText('😀😀😀', 2)).toBe('😀😀');
    expect(truncateText(`a${FAMILY}`, 5)).toBe('a');
    expect(truncateText('ae\u0301z', 2)).toBe('a');
    expect(truncateText('𠮷'.repeat(10), 4, '…')).toBe('𠮷𠮷𠮷…');
    expect(isWellFormedText(truncateText('x😀'.repeat(50), 31))).toBe(true);
  });

  it('counts the ellipsis in the limit and drops the space the cut leaves', () => {
    expect(truncateText('one two three', 8, '…')).toBe('one two…');
    expect(codePointLength(truncateText('word '.repeat(40), 140, '…'))).toBeLessThanOrEqual(140);
  });
});

describe('text()', () => {
  it('limits code points, not UTF-16 units: 80 emoji are an 80-character name', () => {
    expect(AppName.safeParse('😀'.repeat(80)).success).toBe(true);
    expect(AppName.safeParse('😀'.repeat(81)).success).toBe(false);
    expect(PostChatMessageBody.safeParse({ content: '𩸽'.repeat(200) }).success).toBe(true);
    expect(PostChatMessageBody.safeParse({ content: '𩸽'.repeat(201) }).success).toBe(false);
  });

  it('words its limits as zod does, after trimming', () => {
    const schema = text(3, { trim: true, min: 2 });
    expect(schema.parse('  ab  ')).toBe('ab');
    expect(schema.safeParse('abcd').error?.issues).toEqual([
      expect.objectContaining({ code: 'too_big', maximum: 3, message: 'Too big: expected string to have <=3 characters' }),
    ]);
    expect(schema.safeParse(' a ').error?.issues).toEqual([
      expect.objectContaining({ code: 'too_small', minimum: 2, message: 'Too small: expected string to have >=2 characters' }),
    ]);
  });

  it('refuses text that is not well-formed Unicode', () => {
    const result = SubmitAppBody.safeParse({ slug: 'ok-app', name: 'a\ud800', url: 'https://ok.example' });
    expect(result.error?.issues).toEqual([
      expect.objectContaining({ path: ['name'], message: 'Invalid request: text must be valid Unicode' }),
    ]);
  });

  it('declares its limits to JSON Schema and to forms', () => {
    expect(z.toJSONSchema(text(5, { min: 1 }))).toMatchObject({ type: 'string', minLength: 1, maxLength: 5 });
    expect(textLimits(AppName)).toEqual({ minLength: 1, maxLength: 80 });
    expect(textLimits(z.string())).toEqual({ minLength: undefined, maxLength: undefined });
  });
});

describe('limitText()', () => {
  it('adds the code-point limits to another string schema (an app URL)', async () => {
    const { AppUrl, SemVer } = await import('../src/index.js');
    const path = '😀'.repeat(2048 - 'https://x.test/'.length);
    expect(AppUrl.safeParse(`https://x.test/${path}`).success).toBe(true);
    expect(AppUrl.safeParse(`https://x.test/${path}😀`).success).toBe(false);
    expect(z.toJSONSchema(AppUrl)).toMatchObject({ type: 'string', maxLength: 2048 });
    expect(SemVer.safeParse(`1.0.0-${'a'.repeat(58)}`).success).toBe(true);
    expect(SemVer.safeParse(`1.0.0-${'a'.repeat(59)}`).success).toBe(false);
  });
});
