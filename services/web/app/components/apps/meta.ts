// Page titles from route `meta` functions, which cannot use hooks: the text comes from the
// root loader's messages (the reader's language) in the `apps` namespace.
import type { MetaDescriptor } from 'react-router';
import type { RootData } from '../../lib/root-data';

interface MatchLike {
  id: string;
  loaderData?: unknown;
}

export function rootOf(matches: readonly (MatchLike | undefined)[]): RootData | undefined {
  return matches.find((m) => m?.id === 'root')?.loaderData as RootData | undefined;
}

/** `apps` message `key` (dotted) with {{name}} placeholders filled. */
export function appsText(
  matches: readonly (MatchLike | undefined)[],
  key: string,
  vars: Record<string, string | number> = {},
): string {
  let node: unknown = rootOf(matches)?.messages?.apps;
  for (const part of key.split('.')) {
    node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
  }
  const text = typeof node === 'string' ? node : key;
  return text.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, name: string) => String(vars[name] ?? ''));
}

/** `<title>` (with the site name) and, for private pages, `noindex`. */
export function pageMeta(title: string, options: { noindex?: boolean; description?: string } = {}): MetaDescriptor[] {
  const out: MetaDescriptor[] = [{ title: `${title} · svc` }];
  if (options.description) out.push({ name: 'description', content: options.description });
  if (options.noindex) out.push({ name: 'robots', content: 'noindex' });
  return out;
}

/** Where to log in and come back to `path`. */
export function loginHref(path: string): string {
  return `/login?next=${encodeURIComponent(path)}`;
}
