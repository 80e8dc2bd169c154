// Titles of the account pages from route `meta` functions (no hooks there): the text comes
// from the root loader's messages (the reader's language), `account` namespace. Account
// pages are private: `noindex`.
import type { MetaDescriptor } from 'react-router';
import type { RootData } from '../../lib/root-data';

interface MatchLike {
  id: string;
  loaderData?: unknown;
}

export function accountText(matches: readonly (MatchLike | undefined)[], key: string): string {
  const root = matches.find((m) => m?.id === 'root')?.loaderData as RootData | undefined;
  let node: unknown = root?.messages?.account;
  for (const part of key.split('.')) {
    node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
  }
  return typeof node === 'string' ? node : key;
}

export function accountMeta(matches: readonly (MatchLike | undefined)[], titleKey: string): MetaDescriptor[] {
  return [{ title: `${accountText(matches, titleKey)} · svc` }, { name: 'robots', content: 'noindex' }];
}
