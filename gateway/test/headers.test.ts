// The upstream request's trace headers (proxy/headers.ts): with tracing on the gateway's server
// span replaces the caller's `traceparent` (the upstream's span is then the gateway's child);
// with it off the caller's goes through untouched. `tracestate` is passed on either way.
import { describe, expect, it } from '@jest/globals';
import { upstreamRequestHeaders } from '../src/proxy/headers.js';

const client = { ip: '203.0.113.9', proto: 'https' as const, host: 'example.com' };
const caller = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const raw = [
  'Host',
  'example.com',
  'traceparent',
  caller,
  'tracestate',
  'vendor=x',
  'Accept',
  '*/*',
];

function pairs(list: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i < list.length; i += 2) out.push([list[i]!, list[i + 1]!]);
  return out;
}

describe('trace headers sent upstream', () => {
  it("tracing on: the gateway's traceparent replaces the caller's, tracestate is kept", () => {
    const own = '00-4bf92f3577b34da6a3ce929d0e0e4736-b7ad6b7169203331-01';
    const headers = pairs(upstreamRequestHeaders(raw, undefined, 'req-1', client, false, own));
    expect(headers.filter(([n]) => n.toLowerCase() === 'traceparent')).toEqual([
      ['traceparent', own],
    ]);
    expect(headers).toContainEqual(['tracestate', 'vendor=x']);
  });

  it("tracing off: the caller's traceparent goes through untouched", () => {
    const headers = pairs(upstreamRequestHeaders(raw, undefined, 'req-1', client));
    expect(headers.filter(([n]) => n.toLowerCase() === 'traceparent')).toEqual([
      ['traceparent', caller],
    ]);
  });
});
