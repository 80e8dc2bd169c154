// Every language's messages, bundled into the server build only. A page ships just its
// reader's language (root loader data), never the other eleven.
import type { LanguageCode } from './languages';
import { LANGUAGE_CODES } from './languages';
import { NAMESPACES, type LanguageMessages, type Messages } from './namespaces';

const files = import.meta.glob<Messages>('../locales/*/*.json', { eager: true, import: 'default' });

function load(): Record<LanguageCode, LanguageMessages> {
  const out = {} as Record<LanguageCode, LanguageMessages>;
  for (const lang of LANGUAGE_CODES) {
    const messages = {} as LanguageMessages;
    for (const ns of NAMESPACES) messages[ns] = files[`../locales/${lang}/${ns}.json`] ?? {};
    out[lang] = messages;
  }
  return out;
}

export const RESOURCES = load();

export function messagesFor(lang: LanguageCode): LanguageMessages {
  return RESOURCES[lang];
}
