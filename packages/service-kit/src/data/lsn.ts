// PostgreSQL WAL positions (`pg_lsn`, written `16/B374D848`: the high and low 32 bits of a
// byte offset in hexadecimal). Compared as bigints; stored in Redis as 16 hex digits, so
// a script can keep the larger of two by comparing strings.

export type Lsn = bigint;

const LSN_TEXT = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/;
const LSN_KEY = /^[0-9a-f]{16}$/;

/** `16/B374D848` → 0x16_B374D848n; throws on anything else. */
export function parseLsn(text: string): Lsn {
  const m = LSN_TEXT.exec(text);
  if (!m) throw new Error(`Not a WAL position: ${JSON.stringify(text)}`);
  return (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`);
}

/** The text PostgreSQL writes for `lsn` (`16/B374D848`). */
export function formatLsn(lsn: Lsn): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffff_ffffn).toString(16).toUpperCase()}`;
}

/** Fixed-width lower-case hex: two keys compare as strings as their positions do. */
export function lsnKey(lsn: Lsn): string {
  return lsn.toString(16).padStart(16, '0');
}

/** The position of an `lsnKey`; undefined for anything else (a key written by other code). */
export function parseLsnKey(key: string | null | undefined): Lsn | undefined {
  return key && LSN_KEY.test(key) ? BigInt(`0x${key}`) : undefined;
}
