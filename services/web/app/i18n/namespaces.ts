// The message catalogues: app/locales/<language>/<namespace>.json. `common` holds what
// every page shares (navigation, tags, categories, system messages, errors); each area
// of the site has its own namespace so its pages and their translations live together.
export const NAMESPACES = ['common', 'sites', 'account', 'apps', 'moderation'] as const;
export type Namespace = (typeof NAMESPACES)[number];

/** One language's messages: namespace → nested keys → text. */
export type Messages = Record<string, unknown>;
export type LanguageMessages = Record<Namespace, Messages>;
