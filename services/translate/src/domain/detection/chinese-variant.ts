// Which of the three Chinese codes a Han text is written in.
//
// Simplified vs traditional: OpenCC's own dictionaries (opencc-js, phrase-aware) convert the
// text both ways; characters that change when converted to traditional are simplified-only
// forms, characters that change when converted to simplified are traditional-only forms.
// The larger count wins. Text whose characters are the same in both scripts (e.g. 早上好)
// is valid simplified Chinese and is reported as zh-CN, the more common written form.
//
// zh-HK vs zh-TW: both write traditional characters, and formal Hong Kong writing is the
// same standard written Chinese as Taiwan's. What marks Hong Kong text is written
// Cantonese, so a traditional (or script-neutral) text containing a Cantonese-only
// character or word is zh-HK; other traditional text is zh-TW. 係 and 呢 are left out of the list
// because standard Chinese uses them too (關係, 呢絨), and so are 喇 and 嘞 (喇叭, 好嘞).
import cn2t from 'opencc-js/cn2t';
import t2cn from 'opencc-js/t2cn';

export type ChineseCode = 'zh-CN' | 'zh-TW' | 'zh-HK';

export const CANTONESE_CHARACTERS = [
  ...'嘅咗唔冇佢哋啲嚟喺嘢咁睇嗰噉咩㗎啱攞畀瞓諗搵冚嘥揸啩嚿餸喎',
];
/** Cantonese words written with standard characters only (now, tomorrow, yesterday, why, who, where). */
export const CANTONESE_WORDS = ['而家', '聽日', '琴日', '尋日', '點解', '邊個', '邊度'];

const CANTONESE = new Set(CANTONESE_CHARACTERS);
const toTraditional = cn2t.Converter({ from: 'cn', to: 't' });
const toSimplified = t2cn.Converter({ from: 't', to: 'cn' });

/** How many characters of `text` a conversion changes (position by position). */
function changedCharacters(text: string, converted: string): number {
  const a = Array.from(text);
  const b = Array.from(converted);
  if (a.length === b.length) return a.reduce((n, ch, i) => (ch === b[i] ? n : n + 1), 0);
  // A phrase conversion changed the length (rare for these two converters): count the
  // characters of the text that no longer appear in the converted text.
  const kept = new Map<string, number>();
  for (const ch of b) kept.set(ch, (kept.get(ch) ?? 0) + 1);
  let changed = 0;
  for (const ch of a) {
    const left = kept.get(ch) ?? 0;
    if (left > 0) kept.set(ch, left - 1);
    else changed++;
  }
  return changed;
}

export interface ChineseEvidence {
  simplified: number;
  traditional: number;
  cantonese: number;
}

export function chineseEvidence(text: string): ChineseEvidence {
  let cantonese = 0;
  for (const ch of text) if (CANTONESE.has(ch)) cantonese++;
  for (const word of CANTONESE_WORDS) cantonese += text.split(word).length - 1;
  return {
    simplified: changedCharacters(text, toTraditional(text)),
    traditional: changedCharacters(text, toSimplified(text)),
    cantonese,
  };
}

export function chineseVariant(evidence: ChineseEvidence): ChineseCode {
  if (evidence.simplified > evidence.traditional) return 'zh-CN';
  if (evidence.cantonese > 0) return 'zh-HK';
  if (evidence.traditional > evidence.simplified) return 'zh-TW';
  return 'zh-CN';
}
