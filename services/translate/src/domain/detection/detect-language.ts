// Offline language detection for the 12 codes (and a best guess for other languages).
//
// 1. Writing system first: Hangul → ko; kana → ja (Japanese mixes kana into kanji, while
//    Chinese text has none or a stray の); other Han text → one of the Chinese codes
//    (chinese-variant.ts).
// 2. Everything else goes to eld (Efficient Language Detector, small n-gram table, 60
//    languages), which also names languages outside the 12 (`it`, `ru`, ...), so an
//    Italian text is not forced into `es` or `pt`.
import eld from 'eld/small';
import { chineseEvidence, chineseVariant } from './chinese-variant.js';
import { countScripts } from './script-counts.js';

export const UNDETERMINED = 'und';

export interface Detection {
  /** A language code: one of the 12, another ISO 639-1 code, or `und`. */
  lang: string;
  /** Whether the code can be trusted enough to skip the AI when it equals the target. */
  reliable: boolean;
  /** Letters in the text; 0 means there is nothing to translate (digits, emoji, symbols). */
  letters: number;
  /** Han text whose characters are the same in simplified and traditional script. */
  neutralChinese: boolean;
}

eld.enableTextCleanup(true); // ignore URLs, e-mail addresses and the like

/** Kana share of the Japanese-capable letters above which a Han text is Japanese. */
const KANA_SHARE_FOR_JAPANESE = 0.1;

export function detectLanguage(text: string): Detection {
  const s = countScripts(text);
  const cjk = s.han + s.kana + s.hangul;
  const letters = cjk + s.other;
  if (letters === 0) return { lang: UNDETERMINED, reliable: false, letters, neutralChinese: false };

  if (cjk >= s.other) {
    const result = (lang: string, neutralChinese = false): Detection => ({
      lang,
      reliable: true,
      letters,
      neutralChinese,
    });
    if (s.hangul > 0 && s.hangul >= s.kana) return result('ko');
    if (s.kana > 0 && s.kana >= KANA_SHARE_FOR_JAPANESE * (s.kana + s.han)) return result('ja');
    const evidence = chineseEvidence(text);
    const neutral =
      evidence.simplified === 0 && evidence.traditional === 0 && evidence.cantonese === 0;
    return result(chineseVariant(evidence), neutral);
  }

  const found = eld.detect(text);
  if (found.language === '')
    return { lang: UNDETERMINED, reliable: false, letters, neutralChinese: false };
  return { lang: found.language, reliable: found.isReliable(), letters, neutralChinese: false };
}
