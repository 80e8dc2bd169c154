// What the root loader gives every page (language, messages, the user…), read by the
// components and routes through `useRootData`. Its own module, so nothing imports root.tsx:
// the root imports the header, and the header reads this.
import type { AuthUser } from '@svc/types';
import { useRouteLoaderData } from 'react-router';
import type { LanguageCode } from '../i18n/languages';
import type { LanguageMessages } from '../i18n/namespaces';

export interface RootData {
  lang: LanguageCode;
  dir: 'ltr' | 'rtl';
  messages: LanguageMessages;
  user: AuthUser | null;
  /** The session acts as a moderator (`is_moderator` of /api/auth/me): the header links /moderation. */
  isModerator: boolean;
  captchaSiteKey: string | null;
  publicBaseUrl: string;
}

/** The root loader's data wherever it is needed (undefined only if the root loader failed). */
export function useRootData(): RootData | undefined {
  return useRouteLoaderData('root') as RootData | undefined;
}
