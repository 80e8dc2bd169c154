// End to end: the built `svc` binary against the real gateway, auth and app-store
// processes. A developer logs in and creates an app and an API key with svc; then a
// pipeline runs svc with nothing but SVC_API_KEY and SVC_BASE_URL.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ServiceProcess } from '@svc/service-kit/testing';
import { codeFor } from './login.js';
import { freshHome, runSvc as svc } from './svc-binary.js';
import { createTestSystem, type FakeResend } from './system-processes.js';

const system = createTestSystem();
let resend: FakeResend;
let gateway: ServiceProcess;

beforeAll(async () => {
  resend = await system.resend();
  const auth = await system.service('auth');
  const appStore = await system.service('app-store');
  gateway = await system.start('gateway/dist/main.js', {
    AUTH_URL: auth.url,
    APP_STORE_URL: appStore.url,
  });
}, 90_000);

afterAll(() => system.stop());

describe('svc in a CI pipeline', () => {
  const email = 'pipeline.dev@example.com';
  const developer = freshHome();
  const devEnv = () => ({
    HOME: developer,
    XDG_CONFIG_HOME: path.join(developer, 'config'),
    SVC_BASE_URL: gateway.url,
  });
  let apiKey = '';
  let keyId = '';
  let firstAppId = '';

  it('a developer logs in with svc login; the session file is private', async () => {
    const res = await svc(['login'], devEnv(), async (stdin) => {
      stdin.write(`${email}\n`);
      // The code arrives by (fake) email once send-code has run.
      const code = await codeFor(resend, email).catch(() => '');
      stdin.end(`${code}\n`);
    });
    expect(res.stderr).toMatch(/Code: /);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/logged in to .* as pipeline_dev/);
    const file = path.join(developer, 'config', 'svc', 'session.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  }, 60_000);

  it('submits a first app and creates an API key for it with the session', async () => {
    const submitted = await svc(
      [
        'apps',
        'submit',
        '--slug',
        'pipeline-tool',
        '--name',
        'Pipeline Tool',
        '--url',
        'https://pipeline-tool.test',
        '--json',
      ],
      devEnv(),
    );
    expect(submitted.stderr).toBe('');
    expect(submitted.code).toBe(0);
    const app = JSON.parse(submitted.stdout);
    expect(app).toMatchObject({ slug: 'pipeline-tool', status: 'approved' });
    firstAppId = app.id;

    const created = await svc(['apps', 'keys', 'create', 'pipeline-tool', '--json'], devEnv());
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key.key).toMatch(/^svc_live_/);
    apiKey = key.key;
    keyId = key.id;
  }, 60_000);

  describe('with only SVC_API_KEY and SVC_BASE_URL', () => {
    const ci = freshHome();
    const ciEnv = (key = apiKey) => ({ HOME: ci, SVC_API_KEY: key, SVC_BASE_URL: gateway.url });
    const manifest = (file: string, content: object) => {
      const at = path.join(ci, file);
      writeFileSync(at, JSON.stringify(content, null, 2));
      return at;
    };

    it("updates the key's own app from app.json, and a re-run changes nothing (same id)", async () => {
      const file = manifest('app.json', {
        slug: 'pipeline-tool',
        name: 'Pipeline Tool',
        url: 'https://pipeline-tool.test',
        description: 'Deployed by CI',
        category: 'developer',
        tech_tags: ['typescript', 'ci'],
      });
      const first = await svc(['apps', 'submit', '--from', file, '--json'], ciEnv());
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(JSON.parse(first.stdout)).toEqual({
        action: 'updated',
        id: firstAppId,
        slug: 'pipeline-tool',
        status: 'approved',
        changed: ['description', 'category', 'tech_tags'],
        ignored: [],
      });
      const again = await svc(['apps', 'submit', '--from', file, '--json'], ciEnv());
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ action: 'unchanged', id: firstAppId });

      const shown = await svc(['apps', 'get', 'pipeline-tool', '--json'], ciEnv());
      expect(JSON.parse(shown.stdout).app).toMatchObject({
        description: 'Deployed by CI',
        category: 'developer',
        tech_tags: ['typescript', 'ci'],
      });
    }, 60_000);

    it('an icon_svg in app.json is stored as written, so the re-run is unchanged', async () => {
      // Not namespaced, self-closing: a store that rewrote it would differ on every run.
      const icon_svg = '<svg viewBox="0 0 8 8"><rect width="8" height="8" fill="#0a0"/></svg>';
      const file = manifest('icon-app.json', {
        slug: 'pipeline-tool',
        name: 'Pipeline Tool',
        url: 'https://pipeline-tool.test',
        icon_svg,
      });
      const first = await svc(['apps', 'submit', '--from', file, '--json'], ciEnv());
      expect([first.code, first.stderr]).toEqual([0, '']);
      expect(JSON.parse(first.stdout)).toMatchObject({ action: 'updated', changed: ['icon_svg'] });
      const again = await svc(['apps', 'submit', '--from', file, '--json'], ciEnv());
      expect([again.code, again.stderr]).toEqual([0, '']);
      expect(JSON.parse(again.stdout)).toMatchObject({ action: 'unchanged', changed: [] });
      const shown = await svc(['apps', 'get', 'pipeline-tool', '--json'], ciEnv());
      expect(JSON.parse(shown.stdout).app.icon_svg).toBe(icon_svg);
    }, 60_000);

    let createdId = '';
    it('creates a new app from a manifest, and a re-run is idempotent (exit 0, same id)', async () => {
      const file = manifest('new-app.json', {
        slug: 'pipeline-created',
        name: 'Created by CI',
        url: 'https://created.test',
        category: 'tools',
      });
      const first = await svc(['apps', 'submit', '--from', file, '--json'], ciEnv());
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      const created = JSON.parse(first.stdout);
      expect(created).toMatchObject({
        action: 'created',
        slug: 'pipeline-created',
        status: 'approved',
      });
      createdId = created.id;
      expect(createdId).not.toBe(firstAppId);

      const again = await svc(['apps', 'submit', '--from', file, '--json'], ciEnv());
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ action: 'unchanged', id: createdId });
    }, 60_000);

    it('lists the apps as parseable JSON, public and own', async () => {
      const listed = await svc(['apps', 'list', '--json', '--limit', '100'], ciEnv());
      expect(listed.code).toBe(0);
      const body = JSON.parse(listed.stdout);
      expect(body.apps.map((a: { slug: string }) => a.slug).sort()).toEqual([
        'pipeline-created',
        'pipeline-tool',
      ]);
      expect(body.meta).toMatchObject({ limit: 100, offset: 0, count: 2, total: 2 });

      const mine = await svc(['apps', 'list', '--mine', '--json'], ciEnv());
      expect(mine.code).toBe(0);
      expect(
        JSON.parse(mine.stdout)
          .apps.map((a: { id: string }) => a.id)
          .sort(),
      ).toEqual([createdId, firstAppId].sort());
    }, 60_000);

    it("a key is per app: changing another app with it exits 1 with the API's reason", async () => {
      const file = manifest('new-app.json', {
        slug: 'pipeline-created',
        name: 'Created by CI',
        url: 'https://created.test',
        description: 'changed',
      });
      const res = await svc(['apps', 'submit', '--from', file], ciEnv());
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/API key is not valid for this app \[HTTP 403/);
    }, 60_000);

    it('an unknown key exits 1 with the error message', async () => {
      const file = manifest('app.json', {
        slug: 'pipeline-tool',
        name: 'Pipeline Tool',
        url: 'https://pipeline-tool.test',
      });
      const res = await svc(
        ['apps', 'submit', '--from', file, '--json'],
        ciEnv('svc_live_not-a-real-key'),
      );
      expect(res.code).toBe(1);
      expect(res.stdout).toBe('');
      expect(res.stderr).toMatch(/^svc: Authentication required/);
    }, 60_000);

    it('an invalid manifest exits 2 without calling the API', async () => {
      const file = manifest('bad.json', {
        slug: 'pipeline-tool',
        name: 'Pipeline Tool',
        url: 'http://insecure.test',
      });
      const res = await svc(['apps', 'submit', '--from', file], ciEnv());
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/invalid manifest .*bad\.json:\n\s+url: /);
    }, 60_000);

    it('a revoked key exits 1 at once', async () => {
      const revoked = await svc(
        ['apps', 'keys', 'revoke', 'pipeline-tool', keyId, '--json'],
        devEnv(),
      );
      expect(revoked.code).toBe(0);
      expect(JSON.parse(revoked.stdout)).toEqual({ revoked: true, id: keyId });
      const res = await svc(['apps', 'list', '--mine'], ciEnv());
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/Authentication required.*\[HTTP 401/);
    }, 60_000);
  });
});
