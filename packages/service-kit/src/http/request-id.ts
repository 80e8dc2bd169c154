// X-Request-Id: the gateway sets one; a service called directly makes its own.
import { randomUUID } from 'node:crypto';

const SANE_ID = /^[A-Za-z0-9._-]{1,128}$/;

export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value && SANE_ID.test(value) ? value : randomUUID();
}
