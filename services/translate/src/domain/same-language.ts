// When a text is already in the target language, so it comes back unchanged without an
// AI call (docs/decisions/020-translation.md).
//
// - Nothing to translate (no letters: digits, emoji, punctuation): unchanged for every target.
// - A detection the detector itself calls unreliable (very short Latin text such as
//   "Merci") never short-circuits: the AI decides, so a misdetection cannot return an
//   untranslated text.
// - Chinese: Han text whose characters are identical in both scripts is already valid
//   zh-CN, zh-TW and zh-HK. Standard traditional text (zh-TW) is also what Hong Kong
//   writes formally, so zh-TW → zh-HK is unchanged. Written Cantonese (zh-HK) → zh-TW and
//   any script change (zh-CN ↔ zh-TW/zh-HK) go to the AI, which rewrites the script and
//   the vocabulary.
import type { LanguageCode } from '@svc/types';
import type { Detection } from './detection/detect-language.js';

const CHINESE = new Set<string>(['zh-CN', 'zh-TW', 'zh-HK']);

export function isAlreadyInTarget(detection: Detection, target: LanguageCode): boolean {
  if (detection.letters === 0) return true;
  if (!detection.reliable) return false;
  if (detection.lang === target) return true;
  if (detection.neutralChinese && CHINESE.has(target)) return true;
  return detection.lang === 'zh-TW' && target === 'zh-HK';
}
