// A date and time in UTC, the same text on the server and in the browser (no hydration
// mismatch): the author's block and history (apps/app-block.tsx) and the moderation pages.
import { dateTimeFormat } from '../lib/intl';
import { useRootData } from '../lib/root-data';

/** `iso` as the page language writes a date and time, followed by "UTC". */
export function utcText(lang: string, iso: string): string {
  return `${dateTimeFormat(lang).format(new Date(iso))} UTC`;
}

export function When({ iso }: { iso: string }) {
  const lang = useRootData()?.lang ?? 'en';
  return <time dateTime={iso}>{utcText(lang, iso)}</time>;
}
