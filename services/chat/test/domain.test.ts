// Pure rules: geo names, location format, IP hashing, a message's sender, system message text,
// config.
import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '@svc/service-kit';
import { countryName, formatSenderLocation, geoSenderName } from '../src/domain/geo-name.js';
import { likerKey, visitorTag } from '../src/domain/ip-hash.js';
import { senderOfRow } from '../src/domain/moderation-audit.js';
import { systemMessageText } from '../src/domain/system-message-text.js';
import { configSchema } from '../src/config.js';
import { geoipLiteLookup } from '../src/clients/geo-lookup.js';

describe('formatSenderLocation', () => {
  it('formats <country_code>|<city>', () => {
    expect(formatSenderLocation({ country: 'JP', city: 'Tokyo' })).toBe('JP|Tokyo');
    expect(formatSenderLocation({ country: 'us', city: '' })).toBe('US|');
  });
  it('is null without a two-letter country', () => {
    expect(formatSenderLocation(null)).toBeNull();
    expect(formatSenderLocation({ country: '', city: 'Paris' })).toBeNull();
    expect(formatSenderLocation({ country: 'EU1', city: 'x' })).toBeNull();
  });
  it('keeps separators and control characters out of the city', () => {
    expect(formatSenderLocation({ country: 'FR', city: 'A|B\nC  ' })).toBe('FR|A B C');
    expect(formatSenderLocation({ country: 'FR', city: 'x'.repeat(300) })).toHaveLength(83);
  });
  it('cuts a long city at 80 characters without splitting one', () => {
    // 79 + 2 characters: a UTF-16 cut at 80 units would keep half of the first 𠮷.
    expect(formatSenderLocation({ country: 'JP', city: `${'x'.repeat(79)}𠮷𠮷` })).toBe(`JP|${'x'.repeat(79)}𠮷`);
    expect(geoSenderName({ country: 'JP', city: '😀'.repeat(90) }, 'AB12')).toBe(`Visitor from ${'😀'.repeat(80)} #AB12`);
  });
});

describe('geoSenderName', () => {
  it('prefers the city, then the country name, then plain Visitor', () => {
    expect(geoSenderName({ country: 'JP', city: 'Tokyo' }, 'AB12')).toBe(
      'Visitor from Tokyo #AB12',
    );
    expect(geoSenderName({ country: 'DE', city: '' }, 'AB12')).toBe('Visitor from Germany #AB12');
    expect(geoSenderName(null, 'AB12')).toBe('Visitor #AB12');
  });
  it('names countries in English and falls back to the code', () => {
    expect(countryName('JP')).toBe('Japan');
    expect(countryName('QQ')).toBe('QQ');
  });
});

describe('IP identity', () => {
  it('keeps a visitor tag for a UTC day and changes it the next day', () => {
    const morning = new Date('2026-11-22T00:10:00Z');
    const evening = new Date('2026-11-22T23:50:00Z');
    const tomorrow = new Date('2026-11-23T00:10:00Z');
    expect(visitorTag('s', '1.2.3.4', morning)).toMatch(/^[0-9A-F]{4}$/);
    expect(visitorTag('s', '1.2.3.4', morning)).toBe(visitorTag('s', '1.2.3.4', evening));
    expect(visitorTag('s', '1.2.3.4', morning)).not.toBe(visitorTag('s', '1.2.3.4', tomorrow));
  });
  it('keys likers by user or by IP hash', () => {
    expect(likerKey('u1', 'h')).toBe('user:u1');
    expect(likerKey(undefined, 'h')).toBe('ip:h');
  });
});

describe('senderOfRow', () => {
  it('names a logged-in sender by user id, a visitor by IP hash, and nobody once both are gone', () => {
    expect(senderOfRow({ senderUserId: 'u1', senderIpHash: 'h1' })).toEqual({ kind: 'user', userId: 'u1' });
    expect(senderOfRow({ senderUserId: null, senderIpHash: 'h1' })).toEqual({ kind: 'visitor', ipHash: 'h1' });
    // A system message, or a message whose sender deleted their account.
    expect(senderOfRow({ senderUserId: null, senderIpHash: null })).toBeNull();
  });
});

describe('geoipLiteLookup (the database shipped in the package, offline)', () => {
  it('finds a city, a country-only address, and nothing for private addresses', () => {
    expect(geoipLiteLookup('27.0.0.3')).toEqual({ country: 'JP', city: 'Tokyo' });
    expect(geoipLiteLookup('::ffff:27.0.0.3')).toEqual({ country: 'JP', city: 'Tokyo' });
    expect(geoipLiteLookup('8.8.8.8')).toEqual({ country: 'US', city: '' });
    expect(geoipLiteLookup('127.0.0.1')).toBeNull();
    expect(geoipLiteLookup('10.0.0.1')).toBeNull();
  });
});

describe('systemMessageText', () => {
  it('has an English fallback for every key', () => {
    expect(
      systemMessageText({
        content_key: 'site_submitted',
        content_params: { site_id: 's1', url: 'https://a.example/', domain: 'a.example' },
      }),
    ).toBe('New site submitted: a.example');
    expect(
      systemMessageText({
        content_key: 'app_blocked',
        content_params: { slug: 'x', name: 'X App' },
      }),
    ).toBe('App blocked: X App');
  });
});

describe('config', () => {
  it('uses development secrets outside production', () => {
    const c = loadConfig(configSchema, {});
    expect(c.IP_HASH_SECRET).toBeTruthy();
    expect(c.INTERNAL_TOKEN).toBeTruthy();
  });
  it('requires IP_HASH_SECRET and INTERNAL_TOKEN in production', () => {
    expect(() => loadConfig(configSchema, { NODE_ENV: 'production' })).toThrow(
      /IP_HASH_SECRET[\s\S]*INTERNAL_TOKEN/,
    );
    const ok = loadConfig(configSchema, {
      NODE_ENV: 'production',
      IP_HASH_SECRET: 'a'.repeat(32),
      INTERNAL_TOKEN: 'b'.repeat(32),
    });
    expect(ok.INTERNAL_TOKEN).toBe('b'.repeat(32));
  });
});
