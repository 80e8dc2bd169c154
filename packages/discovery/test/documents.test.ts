// Bytes, types and ETags of the documents, and the base URL rules.
import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { buildDiscoveryDocuments, normaliseBaseUrl } from '../src/documents.js';

describe('buildDiscoveryDocuments', () => {
  const docs = buildDiscoveryDocuments({ baseUrl: 'https://svc.test' });

  it('gives each document its media type and an ETag that is a hash of its bytes', () => {
    for (const doc of docs) {
      expect(doc.contentType).toBe(
        doc.path.endsWith('.txt') ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8',
      );
      const hash = createHash('sha256').update(doc.body).digest('base64url').slice(0, 32);
      expect(doc.etag).toBe(`"${hash}"`);
    }
  });

  it('changes the bytes (and ETags) with the base URL only where it appears', () => {
    const other = buildDiscoveryDocuments({ baseUrl: 'https://other.test' });
    for (const [i, doc] of docs.entries()) {
      expect(other[i]!.etag).not.toBe(doc.etag);
      expect(
        other[i]!.body.toString('utf8').replaceAll('https://other.test', 'https://svc.test'),
      ).toBe(doc.body.toString('utf8'));
    }
  });

  it('is the same on every build', () => {
    expect(buildDiscoveryDocuments({ baseUrl: 'https://svc.test' }).map((d) => d.etag)).toEqual(
      docs.map((d) => d.etag),
    );
  });
});

describe('normaliseBaseUrl', () => {
  it.each([
    ['https://svc.example/', 'https://svc.example'],
    ['http://localhost:8080', 'http://localhost:8080'],
    ['https://svc.example/prefix/', 'https://svc.example/prefix'],
  ])('%s → %s', (raw, expected) => {
    expect(normaliseBaseUrl(raw)).toBe(expected);
  });

  it.each(['ftp://svc.example', 'not a url', 'https://svc.example/?q=1', 'https://svc.example/#x'])(
    'refuses %s',
    (raw) => {
      expect(() => normaliseBaseUrl(raw)).toThrow();
    },
  );
});
