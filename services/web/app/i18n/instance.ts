// One i18next instance per render (server) or per page load (browser), holding only the
// reader's language. Synchronous: the messages are already here, so nothing flickers.
import { createInstance, type i18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import type { LanguageCode } from './languages';
import { NAMESPACES, type LanguageMessages } from './namespaces';

export function createI18n(lang: LanguageCode, messages: LanguageMessages): i18n {
  const instance = createInstance();
  void instance.use(initReactI18next).init({
    lng: lang,
    resources: { [lang]: messages },
    ns: [...NAMESPACES],
    defaultNS: 'common',
    fallbackLng: false,
    initAsync: false,
    // React escapes text itself.
    interpolation: { escapeValue: false },
    react: { useSuspense: false },
  });
  return instance;
}
