// Language detection: accuracy on the fixture table (12 sentences per code) and the rules
// the detector is built from.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { LANGUAGE_CODES, type LanguageCode } from '@svc/types';
import { chineseEvidence, chineseVariant } from '../src/domain/detection/chinese-variant.js';
import { detectLanguage, type Detection } from '../src/domain/detection/detect-language.js';
import { countScripts } from '../src/domain/detection/script-counts.js';
import { isAlreadyInTarget } from '../src/domain/same-language.js';

const table = (file: string) =>
  JSON.parse(readFileSync(new URL(`./fixtures/${file}`, import.meta.url), 'utf8')) as Record<
    LanguageCode,
    string[]
  >;

interface Score {
  code: LanguageCode;
  total: number;
  correct: number;
  /** Misses the detector called reliable: they would skip the AI if they matched the target. */
  reliableMisses: number;
  misses: Array<{ s: string; got: string }>;
}

function score(samples: Record<LanguageCode, string[]>): Score[] {
  return LANGUAGE_CODES.map((code) => {
    const sentences = samples[code];
    const misses = sentences
      .map((s) => ({ s, d: detectLanguage(s) }))
      .filter((r) => r.d.lang !== code);
    return {
      code,
      total: sentences.length,
      correct: sentences.length - misses.length,
      // Script-neutral Han text is valid in every Chinese code, so it is no harm.
      reliableMisses: misses.filter((m) => m.d.reliable && !m.d.neutralChinese).length,
      misses: misses.map((m) => ({ s: m.s, got: m.d.lang })),
    };
  });
}

function report(name: string, scores: Score[]): number {
  const total = scores.reduce((n, s) => n + s.total, 0);
  const correct = scores.reduce((n, s) => n + s.correct, 0);
  const reliableMisses = scores.reduce((n, s) => n + s.reliableMisses, 0);
  // Printed for the README's figures.
  console.log(
    [
      `${name}: ${correct}/${total} (${((100 * correct) / total).toFixed(1)} %), misses flagged reliable: ${reliableMisses}`,
      ...scores.map(
        (s) =>
          `  ${s.code.padEnd(5)} ${s.correct}/${s.total}` +
          s.misses.map((m) => `\n        → ${m.got}: ${m.s}`).join(''),
      ),
    ].join('\n'),
  );
  return correct / total;
}

describe('accuracy on the sentence table (language-samples.json)', () => {
  const scores = score(table('language-samples.json'));
  /** Minimum share of each code's sentences that must be detected as that code. */
  const MIN_SCORE = 0.9;

  it('has at least 10 sentences for every one of the 12 codes', () => {
    for (const { code, total } of scores) expect([code, total >= 10]).toEqual([code, true]);
  });

  it(`detects every code with a score of at least ${MIN_SCORE * 100} %`, () => {
    expect(report('sentences', scores)).toBeGreaterThanOrEqual(MIN_SCORE);
    for (const s of scores)
      expect([s.code, s.correct / s.total >= MIN_SCORE]).toEqual([s.code, true]);
  });
});

describe('accuracy on short phrases (language-samples-short.json)', () => {
  const scores = score(table('language-samples-short.json'));

  it('scores at least 85 % overall and 60 % for every code on 1–4 word phrases', () => {
    expect(report('short phrases', scores)).toBeGreaterThanOrEqual(0.85);
    for (const s of scores) expect([s.code, s.correct / s.total >= 0.6]).toEqual([s.code, true]);
  });
});

describe('script rules', () => {
  it('counts letters by writing system', () => {
    expect(countScripts('한국어 テスト 漢字 abc ー 123 !')).toEqual({
      han: 2,
      kana: 4,
      hangul: 3,
      other: 3,
    });
  });

  it.each([
    ['Hangul, even with some Han characters', '大韓民國 국민 여러분 안녕하세요', 'ko'],
    ['kana among kanji', '私の名前は田中です', 'ja'],
    [
      'a single stray の in Chinese text is still Chinese',
      '我们的の店在北京市中心开业了欢迎大家光临',
      'zh-CN',
    ],
    [
      'Latin text with a Chinese word is judged by its majority script',
      'I really love eating 寿司 with my friends on Friday',
      'en',
    ],
  ])('%s', (_name, text, lang) => {
    expect(detectLanguage(text).lang).toBe(lang);
  });

  it('names languages outside the 12 instead of forcing them into one', () => {
    expect(
      detectLanguage('Ciao a tutti, come state oggi? Vi auguro una buona giornata.').lang,
    ).toBe('it');
    expect(detectLanguage('Привет всем, как у вас дела сегодня?').lang).toBe('ru');
  });

  it('reports und for text without letters', () => {
    expect(detectLanguage('12:30 🙂 !!')).toMatchObject({ lang: 'und', letters: 0 });
  });
});

describe('simplified, traditional and Cantonese', () => {
  it('counts simplified-only and traditional-only characters', () => {
    expect(chineseEvidence('这个网站')).toMatchObject({ simplified: 3, traditional: 0 });
    expect(chineseEvidence('這個網站')).toMatchObject({ simplified: 0, traditional: 3 });
    expect(chineseEvidence('早上好')).toEqual({ simplified: 0, traditional: 0, cantonese: 0 });
  });

  it.each([
    [{ simplified: 3, traditional: 0, cantonese: 0 }, 'zh-CN'],
    [{ simplified: 0, traditional: 3, cantonese: 0 }, 'zh-TW'],
    [{ simplified: 0, traditional: 3, cantonese: 1 }, 'zh-HK'],
    [{ simplified: 0, traditional: 0, cantonese: 2 }, 'zh-HK'],
    [{ simplified: 4, traditional: 1, cantonese: 2 }, 'zh-CN'],
    [{ simplified: 0, traditional: 0, cantonese: 0 }, 'zh-CN'],
  ])('%o → %s', (evidence, code) => {
    expect(chineseVariant(evidence)).toBe(code);
  });

  it('recognises Cantonese words written with standard characters', () => {
    expect(detectLanguage('聽日見').lang).toBe('zh-HK');
    expect(detectLanguage('你而家忙唔忙？').lang).toBe('zh-HK');
  });

  it('does not take 關係 (relationship) for Cantonese 係', () => {
    expect(detectLanguage('我們的關係很好，這是真的。').lang).toBe('zh-TW');
  });
});

describe('same-language rule', () => {
  const d = (lang: string, extra: Partial<Detection> = {}): Detection => ({
    lang,
    reliable: true,
    letters: 10,
    neutralChinese: false,
    ...extra,
  });

  it.each([
    ['same code', d('fr'), 'fr', true],
    ['another code', d('fr'), 'de', false],
    ['an unreliable guess never short-circuits', d('fr', { reliable: false }), 'fr', false],
    ['no letters: nothing to translate', d('und', { reliable: false, letters: 0 }), 'ja', true],
    ['a language outside the 12', d('it'), 'es', false],
    ['standard traditional is valid Hong Kong writing', d('zh-TW'), 'zh-HK', true],
    ['written Cantonese goes to the AI for Taiwan', d('zh-HK'), 'zh-TW', false],
    ['simplified to traditional goes to the AI', d('zh-CN'), 'zh-TW', false],
    ['traditional to simplified goes to the AI', d('zh-TW'), 'zh-CN', false],
    [
      'script-neutral Han text is valid in every Chinese code',
      d('zh-CN', { neutralChinese: true }),
      'zh-TW',
      true,
    ],
    [
      'script-neutral Han text still goes to the AI for Japanese',
      d('zh-CN', { neutralChinese: true }),
      'ja',
      false,
    ],
  ] as const)('%s', (_name, detection, target, expected) => {
    expect(isAlreadyInTarget(detection, target)).toBe(expected);
  });
});
