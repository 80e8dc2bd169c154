import { describe, expect, it } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import { byIp, createIpHasher, hashIp, networkOf, normalizeIp } from '../src/http/client-ip.js';

describe('client IP identity', () => {
  it('treats an IPv4-mapped IPv6 address as the IPv4 address, and IPv6 case-blind', () => {
    expect(normalizeIp('::ffff:1.2.3.4')).toBe('1.2.3.4');
    expect(normalizeIp('::FFFF:1.2.3.4')).toBe('1.2.3.4');
    expect(normalizeIp('2001:DB8::1')).toBe('2001:db8::1');
    expect(normalizeIp('::ffff:abcd')).toBe('::ffff:abcd');
    expect(hashIp('s', '::ffff:1.2.3.4')).toBe(hashIp('s', '1.2.3.4'));
  });

  it('networkOf: an IPv4 address is itself, an IPv6 address its /64 in one spelling', () => {
    expect(networkOf('203.0.113.7')).toBe('203.0.113.7');
    expect(networkOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(networkOf('2001:DB8:0:1::5')).toBe('2001:db8:0:1::/64');
    expect(networkOf('2001:db8:0:1:ffff:ffff:ffff:ffff')).toBe('2001:db8:0:1::/64');
    expect(networkOf('2001:db8:0:2::5')).toBe('2001:db8:0:2::/64');
    expect(networkOf('::1')).toBe('0:0:0:0::/64');
    expect(networkOf('unknown')).toBe('unknown');
  });

  it('hashes with the secret: another secret or address gives another hash', () => {
    expect(hashIp('s1', '1.2.3.4')).toMatch(/^[0-9a-f]{64}$/);
    expect(hashIp('s1', '1.2.3.4')).not.toBe(hashIp('s2', '1.2.3.4'));
    expect(hashIp('s1', '1.2.3.4')).not.toBe(hashIp('s1', '1.2.3.5'));
    expect(createIpHasher('s1')('::ffff:1.2.3.4')).toBe(hashIp('s1', '1.2.3.4'));
  });

  it('byIp: the forwarded address from a trusted proxy, normalised', async () => {
    const app = express();
    app.set('trust proxy', 'loopback');
    app.get('/', (req, res) => {
      res.json({ ip: byIp(req) });
    });
    const forwarded = await request(app).get('/').set('X-Forwarded-For', '::ffff:203.0.113.9');
    expect(forwarded.body.ip).toBe('203.0.113.9');
    const direct = await request(app).get('/');
    expect(['127.0.0.1', '::1']).toContain(direct.body.ip);
  });
});
