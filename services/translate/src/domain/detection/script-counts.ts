// Counts the letters of a text by writing system. Scripts settle Korean, Japanese and
// Chinese outright (n-gram models are weakest there and cannot tell the Chinese scripts
// apart), so detection looks at them before asking the statistical detector.
export interface ScriptCounts {
  han: number;
  kana: number;
  hangul: number;
  /** Every other letter (Latin, Arabic, Devanagari, Cyrillic, ...). */
  other: number;
}

const HAN = /\p{Script=Han}/u;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const HANGUL = /\p{Script=Hangul}/u;
const LETTER = /\p{L}/u;
// The prolonged sound mark ー and the middle dot are Common-script, but only Japanese uses ー.
const KANA_COMMON = /[\u30fc\uff70]/u;

export function countScripts(text: string): ScriptCounts {
  const counts: ScriptCounts = { han: 0, kana: 0, hangul: 0, other: 0 };
  for (const ch of text) {
    if (HAN.test(ch)) counts.han++;
    else if (KANA.test(ch) || KANA_COMMON.test(ch)) counts.kana++;
    else if (HANGUL.test(ch)) counts.hangul++;
    else if (LETTER.test(ch)) counts.other++;
  }
  return counts;
}
