import { describe, expect, it } from '@jest/globals';
import { checkPublicUrl } from '../src/url-policy.js';

// Every spelling the WHATWG parser accepts for a non-public address, as a browser would
// read it (the ssrf matrix of services/sites and the fetcher tests use the same list).
const nonPublicLiterals = [
  // loopback
  'http://127.0.0.1/',
  'http://127.1/',
  'http://127.0.1/',
  'http://0x7f.1/',
  'http://0x7f.0.0.1/',
  'http://0x7f000001/',
  'http://2130706433/',
  'http://0177.0.0.1/',
  'http://0177.1/',
  'http://127.000.000.001/',
  'http://%31%32%37.0.0.1/',
  'http://１２７.0.0.1/', // full-width digits
  'http://127.0.0.1./',
  'http://127.255.255.254:8080/',
  'http://[::1]/',
  'http://[0:0:0:0:0:0:0:1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://[::127.0.0.1]/', // IPv4-compatible (deprecated)
  // unspecified
  'http://0.0.0.0/',
  'http://0/',
  'http://[::]/',
  // private and shared
  'http://10.0.0.1/',
  'http://012.0.0.1/',
  'http://167772161/', // 10.0.0.1
  'http://172.16.0.1/',
  'http://172.31.255.254/',
  'http://192.168.0.1/',
  'http://0300.0250.0.1/', // 192.168.0.1
  'http://3232235521/', // 192.168.0.1
  'http://0xc0a80001/',
  'http://100.64.0.1/', // CGNAT
  // link-local, cloud metadata
  'http://169.254.169.254/latest/meta-data/',
  'http://2852039166/', // 169.254.169.254
  'http://0xa9fea9fe/',
  'http://[::ffff:169.254.169.254]/',
  'http://[::ffff:a9fe:a9fe]/',
  'http://[fe80::1]/',
  'http://[fd00:ec2::254]/', // AWS metadata over IPv6
  // unique-local
  'http://[fd00::1]/',
  'http://[fc00::1]/',
  'http://[fd12:3456:789a:1::1]/',
  // multicast, broadcast, reserved, documentation, benchmarking
  'http://224.0.0.1/',
  'http://[ff02::1]/',
  'http://255.255.255.255/',
  'http://240.0.0.1/',
  'http://192.0.2.1/',
  'http://198.18.0.1/',
  'http://[2001:db8::1]/',
  // IPv6 forms that tunnel to IPv4
  'http://[64:ff9b::a00:1]/', // NAT64 of 10.0.0.1
  'http://[64:ff9b::7f00:1]/', // NAT64 of 127.0.0.1
  'http://[64:ff9b:1::a00:1]/', // local-use NAT64
  'http://[2002:7f00:1::1]/', // 6to4 of 127.0.0.1
  'http://[2002:a00:1::1]/', // 6to4 of 10.0.0.1
  'http://[2001::1]/', // Teredo
  'http://[::ffff:10.0.0.1]/',
];

const localNames = [
  'http://localhost/',
  'http://LocalHost:3000/',
  'https://localhost./',
  'http://localhost../',
  'http://ｌｏｃａｌｈｏｓｔ/', // full-width, mapped by the parser
  'http://app.localhost/',
  'http://a.b.localhost/',
  'http://printer.local/',
  'http://router.home.arpa/',
  'http://1.0.0.127.in-addr.arpa/',
  'http://metadata.google.internal/computeMetadata/v1/',
  'http://ip-10-0-0-1.ec2.internal/',
  'http://localhost.localdomain/',
  'http://nas.lan/',
  'http://wiki.intranet/',
  'http://db.corp/',
  'http://tv.home/',
  'http://x.private/',
  'http://intranet/',
  'http://metadata/',
  'http://instance-data/',
  'http://a..b.com/',
];

const otherSchemes = [
  'file:///etc/passwd',
  'gopher://example.com/',
  'ftp://example.com/',
  'dict://example.com:11211/stat',
  'ws://example.com/',
  'javascript:alert(1)',
  'data:text/html,<title>x</title>',
  'blob:https://example.com/uuid',
];

const publicUrls = [
  'https://example.com/',
  'http://example.com:8080/path?q=1',
  'https://www.example.co.uk/',
  'https://sub.domain.example.org/x#y',
  'http://93.184.216.34/',
  'http://1572395042/', // 93.184.216.34 in decimal: public, so fine in any spelling
  'http://8.8.8.8/',
  'http://172.32.0.1/',
  'http://192.169.0.1/',
  'http://[2606:4700:4700::1111]/',
  'http://[::ffff:8.8.8.8]/',
  'https://localhost.example.com/', // only the last label decides
  'https://local.example/',
  'https://xn--fsqu00a.xn--0zwm56d/', // IDN
  'https://例子.测试/',
  'https://docs.cli-e2e.test/guide', // special-use but never local: resolves nowhere
];

describe('checkPublicUrl', () => {
  it.each(nonPublicLiterals)('refuses the address %s', (url) => {
    const verdict = checkPublicUrl(url);
    expect(verdict).toEqual({
      ok: false,
      reason: expect.stringMatching(/is not a public address$/),
    });
  });

  it.each(localNames)('refuses the local name %s', (url) => {
    const verdict = checkPublicUrl(url);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok)
      expect(verdict.reason).toMatch(
        /names a local or private host|not a fully qualified domain name|not a valid host name/,
      );
  });

  it.each(otherSchemes)('refuses the scheme of %s', (url) => {
    expect(checkPublicUrl(url)).toEqual({
      ok: false,
      reason: expect.stringMatching(/^scheme .* is not allowed/),
    });
  });

  it.each(['', 'not a url', 'http://', 'http://[::1', 'https://exa mple.com/'])(
    'refuses the unparsable %p',
    (url) => {
      expect(checkPublicUrl(url)).toEqual({ ok: false, reason: 'not a valid URL' });
    },
  );

  it.each(publicUrls)('accepts %s', (url) => {
    const verdict = checkPublicUrl(url);
    expect(verdict.ok).toBe(true);
    if (verdict.ok) expect(verdict.url.href).toBe(new URL(url).href);
  });

  it('accepts a URL object as well as a string, and names the address it refused', () => {
    expect(checkPublicUrl(new URL('https://example.com/')).ok).toBe(true);
    expect(checkPublicUrl('http://0x7f.1/')).toEqual({
      ok: false,
      reason: '127.0.0.1 is not a public address',
    });
    expect(checkPublicUrl('http://[::ffff:a9fe:a9fe]/')).toEqual({
      ok: false,
      reason: '::ffff:a9fe:a9fe is not a public address',
    });
  });

  it('exempts exactly the allow-listed host:port pairs (tests), never another scheme', () => {
    const allowHosts = ['127.0.0.1:4567', '[::1]:4567', 'localhost:80'];
    expect(checkPublicUrl('http://127.0.0.1:4567/x', { allowHosts }).ok).toBe(true);
    expect(checkPublicUrl('http://127.1:4567/x', { allowHosts }).ok).toBe(true); // same host once parsed
    expect(checkPublicUrl('http://[::1]:4567/', { allowHosts }).ok).toBe(true);
    expect(checkPublicUrl('http://LOCALHOST/', { allowHosts }).ok).toBe(true); // default port
    expect(checkPublicUrl('http://127.0.0.1:4568/', { allowHosts }).ok).toBe(false);
    expect(checkPublicUrl('https://localhost/', { allowHosts }).ok).toBe(false); // port 443
    expect(checkPublicUrl('ftp://127.0.0.1:4567/', { allowHosts }).ok).toBe(false);
  });
});
