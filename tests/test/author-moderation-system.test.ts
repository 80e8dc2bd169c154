// The author's side of moderation through the gateway, with the real gateway, auth and
// app-store processes, PostgreSQL, Redis/BullMQ and the fake Resend: five
// reporters block an app -> the author's /me/apps says when and why -> the block e-mail
// reaches the author (app-store's job outbox -> notify-email queue -> auth's worker ->
// Resend) -> the author appeals -> moderators see the appeal in the queue -> a moderator
// restores the app -> the restore e-mail arrives, and the author's audit view tells it all
// with actors as roles. Every answer is checked against the served OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ServiceProcess } from '@svc/service-kit/testing';
import { loadContract, type Contract, type ContractRequestInit } from './contract-harness.js';
import { login as loginWith, type LoggedIn } from './login.js';
import { createTestSystem, type FakeResend } from './system-processes.js';

const system = createTestSystem();
let resend: FakeResend;
let gateway: ServiceProcess;
let contract: Contract;
const EMAIL_DOMAIN = 'author-system.test';

beforeAll(async () => {
  resend = await system.resend();
  const [auth, appStore] = await Promise.all([
    system.service('auth', { MODERATOR_EMAILS: `moderator@${EMAIL_DOMAIN}` }),
    system.service('app-store'),
  ]);
  gateway = await system.start('gateway/dist/main.js', {
    AUTH_URL: auth!.url,
    APP_STORE_URL: appStore!.url,
  });
  contract = await loadContract(gateway.url);
}, 90_000);

afterAll(() => system.stop(), 60_000);

const call = (path: string, init: ContractRequestInit = {}) => contract.request(path, init);
const login = (name: string): Promise<LoggedIn> =>
  loginWith(call, resend, `${name}@${EMAIL_DOMAIN}`);

/** The e-mails to `to` whose subject matches, once `n` of them arrived (bounded wait). */
async function mailsTo(to: string, subject: RegExp, n: number, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = resend.sent.filter((m) => [m.to].flat().includes(to) && subject.test(m.subject));
    if (found.length >= n) return found;
    if (Date.now() > deadline)
      throw new Error(`${n} e-mail(s) "${subject}" to ${to} did not arrive`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('a blocked app, its author, the appeal and the restore', () => {
  const slug = 'brigaded-app';
  let author: LoggedIn;
  let moderator: LoggedIn;

  it('five reporters block the app; the author sees when and why, never who', async () => {
    author = await login('author');
    const created = await call('/api/v1/apps', {
      method: 'POST',
      cookie: author.cookie,
      body: { slug, name: 'Brigaded App', url: 'https://brigaded.test' },
    });
    expect(created.status).toBe(201);
    const reasons = ['spam', 'spam', 'malware', 'spam', 'other'];
    let last;
    for (const [i, reason] of reasons.entries()) {
      const reporter = await login(`reporter-${i}`);
      last = await call(`/api/v1/apps/${slug}/report`, {
        method: 'POST',
        cookie: reporter.cookie,
        body: { reason },
      });
      expect(last.status).toBe(200);
    }
    expect(last!.body.blocked).toBe(true);

    const mine = await call('/api/v1/me/apps', { cookie: author.cookie });
    expect(mine.status).toBe(200);
    const app = mine.body.apps.find((a: { slug: string }) => a.slug === slug);
    expect(app).toMatchObject({
      status: 'blocked',
      block: {
        by: 'reports',
        reason_summary: '5 reports: 3 spam, 1 malware, 1 other',
        appeal: null,
        can_appeal: true,
      },
    });
    expect(JSON.stringify(mine.body)).not.toMatch(/reporter-/);
  });

  it('the block e-mail reaches the author through the outbox, the queue and auth', async () => {
    const [mail] = await mailsTo(author.email, /was blocked/, 1);
    expect(mail!.subject).toBe('Your app "Brigaded App" was blocked');
    expect(mail!.text).toContain('5 reports: 3 spam, 1 malware, 1 other');
    expect(mail!.text).toContain(`svc apps appeal ${slug}`);
    expect(mail!.text).not.toMatch(/reporter-/);
  });

  it('the author appeals once; moderators see the appeal in the queue and the history', async () => {
    const text = 'These reports came from one forum thread; the app does what it says.';
    const appealed = await call(`/api/v1/me/apps/${slug}/appeal`, {
      method: 'POST',
      cookie: author.cookie,
      body: { text },
    });
    expect(appealed.status).toBe(201);
    const again = await call(`/api/v1/me/apps/${slug}/appeal`, {
      method: 'POST',
      cookie: author.cookie,
      body: { text: 'again' },
    });
    expect(again.status).toBe(409);

    moderator = await login('moderator');
    const queue = await call('/api/v1/moderation/reports', { cookie: moderator.cookie });
    expect(queue.status).toBe(200);
    expect(queue.body.apps.find((a: { slug: string }) => a.slug === slug)).toMatchObject({
      status: 'blocked',
      open_reporters: 5,
      appeal: { text },
    });
    const history = await call(`/api/v1/moderation/apps/${slug}/reports`, {
      cookie: moderator.cookie,
    });
    expect(history.body.appeals).toEqual([
      expect.objectContaining({ text, open: true, closed_at: null }),
    ]);
  });

  it('a moderator restores the app: the appeal closes, the restore e-mail arrives', async () => {
    const restored = await call(`/api/v1/moderation/apps/${slug}/restore`, {
      method: 'POST',
      cookie: moderator.cookie,
      body: { reason: 'Brigading: the reports were coordinated' },
    });
    expect(restored.status).toBe(200);
    const [mail] = await mailsTo(author.email, /was restored/, 1);
    expect(mail!.subject).toBe('Your app "Brigaded App" was restored');
    expect(mail!.text).toContain('Brigading: the reports were coordinated');

    const mine = await call('/api/v1/me/apps', { cookie: author.cookie });
    expect(mine.body.apps.find((a: { slug: string }) => a.slug === slug)).toMatchObject({
      status: 'approved',
      block: null,
    });
    const history = await call(`/api/v1/moderation/apps/${slug}/reports`, {
      cookie: moderator.cookie,
    });
    expect(history.body.appeals[0].open).toBe(false);
    // One e-mail per block and restore: nothing was sent twice.
    expect(await mailsTo(author.email, /was (blocked|restored)/, 2)).toHaveLength(2);
  });

  it("the author's audit view: the whole story, actors as roles, never the moderator's id", async () => {
    const audit = await call(`/api/v1/me/apps/${slug}/audit`, { cookie: author.cookie });
    expect(audit.status).toBe(200);
    expect(
      audit.body.entries.map((e: { action: string; actor: string }) => [e.action, e.actor]),
    ).toEqual([
      ['app.restored', 'moderator'],
      ['app.appealed', 'author'],
      ['app.blocked', 'system'],
    ]);
    const moderatorView = await call(
      `/api/v1/moderation/audit?target_type=app&target_id=${audit.body.entries[0].target_id}`,
      {
        cookie: moderator.cookie,
      },
    );
    const moderatorId = moderatorView.body.entries[0].actor;
    expect(moderatorId).not.toBe('moderator');
    expect(audit.text).not.toContain(moderatorId);
    const stranger = await login('stranger');
    expect((await call(`/api/v1/me/apps/${slug}/audit`, { cookie: stranger.cookie })).status).toBe(
      404,
    );
  });
});
