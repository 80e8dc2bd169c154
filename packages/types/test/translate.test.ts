import { describe, it, expect } from '@jest/globals';
import { TranslateBody, TranslateResponse } from '../src/translate.js';

describe('translate', () => {
  it('text 1–2000 and a target among the 12', () => {
    expect(TranslateBody.safeParse({ text: 'hello', targetLang: 'ja' }).success).toBe(true);
    expect(TranslateBody.safeParse({ text: 'x'.repeat(2000), targetLang: 'zh-TW' }).success).toBe(
      true,
    );
    expect(TranslateBody.safeParse({ text: 'x'.repeat(2001), targetLang: 'en' }).success).toBe(
      false,
    );
    expect(TranslateBody.safeParse({ text: '', targetLang: 'en' }).success).toBe(false);
    expect(TranslateBody.safeParse({ text: 'hi', targetLang: 'ru' }).success).toBe(false);
    expect(TranslateBody.safeParse({ text: 'hi' }).success).toBe(false);
  });

  it('response has translated and detectedLang', () => {
    expect(
      TranslateResponse.safeParse({ translated: 'こんにちは', detectedLang: 'en' }).success,
    ).toBe(true);
    expect(TranslateResponse.safeParse({ translated: 'x' }).success).toBe(false);
  });
});
