// /docs: its policy allows scripts by this response's nonce only and connections to this
// origin only; the document loads nothing from elsewhere; Scalar's settings keep every call
// to Scalar's services off; the bundle's manifest is read, or the start fails with a reason.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import {
  API_REFERENCE_PATH,
  SCALAR_CONFIGURATION,
  apiReferenceHandler,
  apiReferenceHtml,
  apiReferencePolicy,
  readApiReferenceManifest,
} from '../server/api-reference';

const directives = (csp: string) => new Map(csp.split('; ').map((d) => [d.split(' ')[0]!, d.split(' ').slice(1)]));

function buildDirWith(manifest: unknown): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'web-build-'));
  writeFileSync(path.join(dir, 'api-reference.json'), JSON.stringify(manifest));
  return dir;
}

describe('the API reference’s policy', () => {
  const csp = directives(apiReferencePolicy('n0nce'));

  it('runs only the scripts carrying this response’s nonce: no inline script, no eval, no host', () => {
    expect(csp.get('script-src')).toEqual(["'nonce-n0nce'"]);
    expect(csp.get('default-src')).toEqual(["'none'"]);
  });

  it('connects, loads fonts and images from this origin only (images also as data: URLs)', () => {
    expect(csp.get('connect-src')).toEqual(["'self'"]);
    expect(csp.get('font-src')).toEqual(["'self'"]);
    expect(csp.get('img-src')).toEqual(["'self'", 'data:']);
    expect(csp.get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
    for (const values of csp.values()) for (const v of values) expect(v).not.toMatch(/^(https?:|\*)/);
  });

  it('cannot be framed, frames nothing, posts no form and sets no base', () => {
    for (const name of ['frame-ancestors', 'frame-src', 'form-action', 'base-uri', 'object-src', 'worker-src'])
      expect([name, csp.get(name)]).toEqual([name, ["'none'"]]);
  });
});

describe('the API reference’s document', () => {
  const html = apiReferenceHtml({ nonce: 'n0nce', script: '/assets/scalar-api-reference-0123456789abcdef.js' });

  it('gives every script the nonce and loads the bundle from this origin', () => {
    const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]!);
    expect(scripts.length).toBe(3);
    for (const attrs of scripts) expect(attrs).toContain('nonce="n0nce"');
    expect(html).toContain('src="/assets/scalar-api-reference-0123456789abcdef.js"');
    // Links and sources are paths of this origin.
    for (const [, url] of html.matchAll(/\s(?:src|href)="([^"]+)"/g)) expect(url).toMatch(/^\/(?!\/)/);
  });

  it('leaves the mount point empty (Scalar would hydrate children) and off the id the bundle auto-mounts', () => {
    expect(html).toContain('<div id="reference"></div>');
    expect(html).not.toContain('id="api-reference"');
    expect(html).toContain("Scalar.createApiReference('#reference'");
  });

  it('turns zod’s eval probe off before the bundle runs', () => {
    const zod = html.indexOf('__zod_globalConfig = { jitless: true }');
    expect(zod).toBeGreaterThan(-1);
    expect(zod).toBeLessThan(html.indexOf('src="/assets/'));
  });

  it('configures Scalar with no proxy, fonts, telemetry, agent, MCP, hosted client or developer tools', () => {
    expect(SCALAR_CONFIGURATION).not.toHaveProperty('proxyUrl');
    expect(SCALAR_CONFIGURATION).not.toHaveProperty('proxy');
    expect(SCALAR_CONFIGURATION).toMatchObject({
      url: '/openapi.json',
      withDefaultFonts: false,
      telemetry: false,
      showDeveloperTools: 'never',
      agent: { disabled: true },
      mcp: { disabled: true },
      hideClientButton: true,
    });
    expect(html).toContain(JSON.stringify(SCALAR_CONFIGURATION));
    // Try-it requests go to the origin the reader is on.
    expect(html).toContain('servers: [{ url: window.location.origin');
  });
});

describe('GET /docs', () => {
  const app = express();
  app.get(API_REFERENCE_PATH, apiReferenceHandler(buildDirWith({ script: '/assets/x.js', scalarVersion: '1.0.0' })));

  it('answers the document with a fresh nonce each time, never cached', async () => {
    const first = await request(app).get('/docs');
    const second = await request(app).get('/docs');
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toMatch(/^text\/html; charset=utf-8/);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.headers['x-frame-options']).toBe('DENY');
    expect(first.headers['x-content-type-options']).toBe('nosniff');
    const nonceOf = (res: request.Response) => /'nonce-([^']+)'/.exec(res.headers['content-security-policy'] as string)?.[1];
    expect(nonceOf(first)).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(nonceOf(second)).not.toBe(nonceOf(first));
    expect(first.text).toContain(`nonce="${nonceOf(first)}"`);
    expect(first.text).toContain('src="/assets/x.js"');
  });
});

describe('the bundle’s manifest', () => {
  it('is read from the build', () => {
    expect(readApiReferenceManifest(buildDirWith({ script: '/assets/a.js', scalarVersion: '1.76.0' }))).toEqual({
      script: '/assets/a.js',
      scalarVersion: '1.76.0',
    });
  });

  it('stops the start, saying how to build, when missing or not naming an asset', () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'web-build-'));
    expect(() => readApiReferenceManifest(empty)).toThrow(/api-reference\.json is missing.*pnpm --filter @svc\/web build/);
    expect(() => readApiReferenceManifest(buildDirWith({ script: 'https://cdn.example/x.js', scalarVersion: '1' }))).toThrow(
      /does not name the API reference bundle/,
    );
  });
});
