// Every language has every message of every namespace, with the same {{placeholders}} as
// English, and nothing English does not have.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { LANGUAGE_CODES } from '../app/i18n/languages';
import { NAMESPACES } from '../app/i18n/namespaces';

type Tree = { [key: string]: string | Tree };

const load = (lang: string, ns: string): Tree =>
  JSON.parse(readFileSync(new URL(`../app/locales/${lang}/${ns}.json`, import.meta.url), 'utf8')) as Tree;

function leaves(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, value);
    else for (const [k, v] of leaves(value, path)) out.set(k, v);
  }
  return out;
}

const placeholders = (text: string) => [...text.matchAll(/\{\{\s*(\w+)/g)].map((m) => m[1]).sort();

describe.each(NAMESPACES)('the %s messages', (ns) => {
  const english = leaves(load('en', ns));

  it.each(LANGUAGE_CODES.filter((l) => l !== 'en'))('%s has exactly the English keys, each translated', (lang) => {
    const messages = leaves(load(lang, ns));
    expect([...messages.keys()].sort()).toEqual([...english.keys()].sort());
    for (const [key, text] of messages) {
      expect(text.trim()).not.toBe('');
      expect({ key, placeholders: placeholders(text) }).toEqual({ key, placeholders: placeholders(english.get(key)!) });
    }
    // A copy of the English file is not a translation (a few words, like "DeFi", may match).
    const unchanged = [...messages].filter(([key, text]) => text === english.get(key)).length;
    expect(unchanged).toBeLessThanOrEqual(Math.floor(english.size / 3));
  });
});

it('English is not empty in the shared namespace', () => {
  expect(leaves(load('en', 'common')).size).toBeGreaterThan(50);
});
