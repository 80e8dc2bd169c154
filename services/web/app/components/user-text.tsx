// Text people typed (names, descriptions, tags, titles, usernames, messages, reasons) is
// marked dir="auto": it keeps its own direction (an Arabic app name on an English page), and
// styles.css lets every [dir="auto"] element wrap anywhere, so one unbroken 600-character word
// cannot make its box, or the page, wider. An element holding only user text carries the
// attribute itself; user text inside other words goes in <UserText> (an isolated <bdi>), and a
// translated sentence around it through withUserText(), so the sentence keeps the page's
// direction and the text its own. A field people type into takes userTextField(limit).
import type { ReactNode } from 'react';
import type { Translate } from '../lib/api-error';

/** User text inside other words: isolated, in its own direction, wrapping anywhere. */
export function UserText({ children }: { children: ReactNode }) {
  return <bdi dir="auto">{children}</bdi>;
}

// Private-use characters mark where each value lands: no translation holds them.
const OPEN = '\uE000';
const CLOSE = '\uE001';
const MARK = new RegExp(`${OPEN}(\\d+)${CLOSE}`);

/**
 * `t(key, { ...options, ...user })` with each `user` value rendered in <UserText>: a
 * translated sentence ("by {{author}}") around user text.
 */
export function withUserText(t: Translate, key: string, user: Record<string, string>, options: Record<string, unknown> = {}): ReactNode {
  const names = Object.keys(user);
  const marks = Object.fromEntries(names.map((name, i) => [name, `${OPEN}${i}${CLOSE}`]));
  const text = String((t as (key: string, options: Record<string, unknown>) => string)(key, { ...options, ...marks }));
  return text.split(MARK).map((part, i) => (i % 2 === 0 ? part : <UserText key={i}>{user[names[Number(part)]!]}</UserText>));
}

/**
 * The props of a field people type into: its own direction, and a maxlength that never
 * refuses valid text. The contract counts characters as Unicode code points (200 emoji are 200
 * characters); maxlength counts UTF-16 units, two for an emoji or 𠮷, so it is twice the limit,
 * and the schema check or the API words what is too long.
 */
export function userTextField(limit?: number): { dir: 'auto'; maxLength?: number } {
  return limit === undefined ? { dir: 'auto' } : { dir: 'auto', maxLength: 2 * limit };
}

/** Characters in `text` as the contract counts them (code points), for a field's counter. */
export function characterCount(text: string): number {
  return Array.from(text).length;
}
