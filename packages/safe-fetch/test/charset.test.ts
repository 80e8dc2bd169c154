import { describe, expect, it } from '@jest/globals';
import { charsetFromContentType, charsetFromMeta, decodeHtml } from '../src/charset.js';

// Byte strings written out by hand (no encoder dependency): 中文 in GBK, 中文 in Big5,
// 日本 in Shift_JIS.
const GBK = Buffer.from([0xd6, 0xd0, 0xce, 0xc4]);
const BIG5 = Buffer.from([0xa4, 0xa4, 0xa4, 0xe5]);
const SJIS = Buffer.from([0x93, 0xfa, 0x96, 0x7b]);
const page = (head: string, text: Buffer) =>
  Buffer.concat([
    Buffer.from(`<html><head>${head}<title>`),
    text,
    Buffer.from('</title></head></html>'),
  ]);

describe('charset', () => {
  it('reads the charset parameter of Content-Type', () => {
    expect(charsetFromContentType('text/html; charset=GBK')).toBe('GBK');
    expect(charsetFromContentType('text/html;charset="big5"')).toBe('big5');
    expect(charsetFromContentType('text/html')).toBeUndefined();
    expect(charsetFromContentType(undefined)).toBeUndefined();
  });

  it('reads <meta charset> and <meta http-equiv> declarations', () => {
    expect(charsetFromMeta(Buffer.from('<meta charset="shift_jis">'))).toBe('shift_jis');
    expect(
      charsetFromMeta(
        Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=gb2312">'),
      ),
    ).toBe('gb2312');
    expect(charsetFromMeta(Buffer.from('<meta charset="utf-16">'))).toBe('utf-8');
    expect(charsetFromMeta(Buffer.from(`${' '.repeat(2000)}<meta charset="gbk">`))).toBeUndefined();
  });

  it.each([
    ['GBK', GBK, '中文'],
    ['Big5', BIG5, '中文'],
    ['Shift_JIS', SJIS, '日本'],
  ])('decodes %s from the header', (charset, bytes, text) => {
    const { html, charset: used } = decodeHtml(page('', bytes), `text/html; charset=${charset}`);
    expect(html).toContain(`<title>${text}</title>`);
    expect(used).toBe(charset.toLowerCase());
  });

  it.each([
    ['<meta charset="gbk">', GBK, '中文'],
    ['<meta http-equiv="content-type" content="text/html; charset=big5">', BIG5, '中文'],
    ["<meta charset='Shift_JIS'>", SJIS, '日本'],
  ])('decodes from %s when the header has no charset', (meta, bytes, text) => {
    expect(decodeHtml(page(meta, bytes), 'text/html').html).toContain(`<title>${text}</title>`);
  });

  it('prefers the header over the meta tag, and a BOM over both', () => {
    expect(decodeHtml(page('<meta charset="big5">', GBK), 'text/html; charset=gbk').html).toContain(
      '中文',
    );
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<title>é</title>')]);
    expect(decodeHtml(bom, 'text/html; charset=gbk').html).toContain('<title>é</title>');
  });

  it('falls back to UTF-8 for an unknown label and replaces broken bytes', () => {
    const broken = Buffer.concat([
      Buffer.from('<title>ok '),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from('</title>'),
    ]);
    const { html, charset } = decodeHtml(broken, 'text/html; charset=no-such-charset');
    expect(charset).toBe('utf-8');
    expect(html).toContain('<title>ok ');
    expect(html).toContain('\ufffd');
  });
});
