import { expect, it } from '@jest/globals';
import { readCookie } from '../app/lib/cookies';

it('reads one cookie, quoted or encoded, and nothing from a look-alike name', () => {
  const header = 'a=1; sn_token="tok en"; lang=zh-CN; xlang=fr; enc=%E4%B8%AD';
  expect(readCookie(header, 'sn_token')).toBe('tok en');
  expect(readCookie(header, 'lang')).toBe('zh-CN');
  expect(readCookie(header, 'enc')).toBe('中');
  expect(readCookie(header, 'missing')).toBeUndefined();
  expect(readCookie(undefined, 'lang')).toBeUndefined();
  expect(readCookie('bad=%E4', 'bad')).toBe('%E4');
});
