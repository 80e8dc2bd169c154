// Plain-text tables for people: columns padded to their widest cell, long cells cut with
// an ellipsis. Wide (CJK) characters count as two columns so tags line up.

export interface Column<T> {
  header: string;
  value: (row: T) => string | number | boolean | readonly string[] | null | undefined;
  /** Cut cells to this many columns. */
  max?: number;
  align?: 'left' | 'right';
}

export function renderTable<T>(rows: readonly T[], columns: ReadonlyArray<Column<T>>): string {
  const cells = rows.map((row) =>
    columns.map((c) => truncate(cellText(c.value(row)), c.max ?? 60)),
  );
  const widths = columns.map((c, i) =>
    Math.max(displayWidth(c.header), ...cells.map((r) => displayWidth(r[i]!))),
  );
  const line = (values: string[]) =>
    values
      .map((v, i) => pad(v, widths[i]!, columns[i]!.align ?? 'left'))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)].join('\n');
}

/** `key: value` lines for one record. */
export function renderRecord(entries: ReadonlyArray<[string, unknown]>): string {
  const width = Math.max(...entries.map(([k]) => k.length));
  return entries.map(([k, v]) => `${`${k}:`.padEnd(width + 1)} ${cellText(v)}`).join('\n');
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (Array.isArray(value)) return value.length ? value.join(', ') : '-';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value).replace(/\s+/g, ' ');
}

function isWide(codePoint: number): boolean {
  return (
    (codePoint >= 0x1100 && codePoint <= 0x115f) ||
    (codePoint >= 0x2e80 && codePoint <= 0xa4cf) ||
    (codePoint >= 0xac00 && codePoint <= 0xd7a3) ||
    (codePoint >= 0xf900 && codePoint <= 0xfaff) ||
    (codePoint >= 0xfe30 && codePoint <= 0xfe4f) ||
    (codePoint >= 0xff00 && codePoint <= 0xff60) ||
    (codePoint >= 0xffe0 && codePoint <= 0xffe6) ||
    (codePoint >= 0x1f300 && codePoint <= 0x1faff) ||
    (codePoint >= 0x20000 && codePoint <= 0x3fffd)
  );
}

export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) width += isWide(ch.codePointAt(0)!) ? 2 : 1;
  return width;
}

export function truncate(text: string, max: number): string {
  if (displayWidth(text) <= max) return text;
  let out = '';
  let width = 0;
  for (const ch of text) {
    const w = isWide(ch.codePointAt(0)!) ? 2 : 1;
    if (width + w > max - 1) break;
    out += ch;
    width += w;
  }
  return `${out}…`;
}

function pad(text: string, width: number, align: 'left' | 'right'): string {
  const fill = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return align === 'right' ? fill + text : text + fill;
}
