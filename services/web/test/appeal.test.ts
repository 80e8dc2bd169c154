// The appeal form's post, checked against the contract before anything is sent, and the
// words a refused appeal gets.
import { describe, expect, it } from '@jest/globals';
import { APPEAL_TEXT_MAX, AppealBody, textLimits } from '@svc/types';
import { APPEAL_MAX, appealFailureKey, parseAppeal } from '../app/components/apps/appeal.js';

const form = (fields: Record<string, string>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  return f;
};

describe('parseAppeal', () => {
  it('reads the limit from the contract', () => {
    expect(APPEAL_MAX).toBe(textLimits(AppealBody.shape.text).maxLength);
    expect(APPEAL_MAX).toBe(APPEAL_TEXT_MAX);
  });

  it('takes a trimmed text of 1 to the limit characters', () => {
    expect(parseAppeal(form({ text: '  It was a brigade. ' }))).toEqual({ ok: true, text: 'It was a brigade.' });
    const longest = 'x'.repeat(APPEAL_MAX);
    expect(parseAppeal(form({ text: ` ${longest} ` }))).toEqual({ ok: true, text: longest });
  });

  it('refuses an empty, blank or missing text and one over the limit', () => {
    expect(parseAppeal(form({ text: '' }))).toEqual({ ok: false, problem: 'required' });
    expect(parseAppeal(form({ text: ' \n ' }))).toEqual({ ok: false, problem: 'required' });
    expect(parseAppeal(form({}))).toEqual({ ok: false, problem: 'required' });
    expect(parseAppeal(form({ text: 'x'.repeat(APPEAL_MAX + 1) }))).toEqual({ ok: false, problem: 'tooLong' });
  });
});

describe('appealFailureKey', () => {
  it('tells the two conflicts apart and names a missing app', () => {
    expect(appealFailureKey(409, 'This block was already appealed')).toBe('block.alreadyAppealed');
    expect(appealFailureKey(409, 'App is not blocked')).toBe('block.notBlocked');
    expect(appealFailureKey(404, 'App not found')).toBe('block.notFound');
    expect(appealFailureKey(429, 'Too many requests')).toBeUndefined();
  });
});
