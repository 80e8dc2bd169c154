import { describe, expect, it } from '@jest/globals';
import { baseConfigSchema, loadConfig } from '../src/ops/config.js';
import { parseRedisUrl } from '../src/redis/redis.js';

describe('parseRedisUrl (REDIS_URL)', () => {
  it('leaves one node to ioredis', () => {
    expect(parseRedisUrl('redis://:pw@cache:6380/2')).toEqual({ kind: 'single', url: 'redis://:pw@cache:6380/2' });
    expect(parseRedisUrl('rediss://cache')).toEqual({ kind: 'single', url: 'rediss://cache' });
  });

  it('reads the seed nodes of a cluster, with credentials and TLS', () => {
    expect(parseRedisUrl('redis+cluster://10.0.0.1:7000,10.0.0.2:7001,redis-2')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
        { host: 'redis-2', port: 6379 },
      ],
      tls: false,
    });
    expect(parseRedisUrl('rediss+cluster://app:p%40ss@[::1]:7000/')).toEqual({
      kind: 'cluster',
      nodes: [{ host: '::1', port: 7000 }],
      username: 'app',
      password: 'p@ss',
      tls: true,
    });
  });

  it('reads sentinels, the master name, the database and the sentinel password', () => {
    expect(parseRedisUrl('redis+sentinel://:secret@s1:26380,s2/mymaster/3?sentinelPassword=s%26p')).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 's1', port: 26380 },
        { host: 's2', port: 26379 },
      ],
      name: 'mymaster',
      db: 3,
      password: 'secret',
      sentinelPassword: 's&p',
      tls: false,
    });
  });

  it.each([
    'not a url',
    'http://cache:6379',
    'redis+cluster://a:1,b:99999',
    'redis+cluster://a:1/0',
    'redis+sentinel://s1:26379',
    'redis+sentinel://s1:26379/mymaster/x',
    'redis+mesh://a:1',
  ])('refuses %s, and the config names REDIS_URL', (url) => {
    expect(() => parseRedisUrl(url)).toThrow();
    expect(() => loadConfig(baseConfigSchema, { REDIS_URL: url })).toThrow(/REDIS_URL is invalid/);
  });

  it('accepts a cluster URL in the base settings', () => {
    expect(loadConfig(baseConfigSchema, { REDIS_URL: 'redis+cluster://a:1,b:2' }).REDIS_URL).toBe('redis+cluster://a:1,b:2');
  });
});
