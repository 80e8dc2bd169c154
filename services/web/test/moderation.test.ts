// The moderation pages' pure parts: a form's post as a command (checked against the contract's
// limits before anything is sent) and the audit page's filter from its URL.
import { describe, expect, it } from '@jest/globals';
import { HideSiteBody, ModerationReasonBody, MuteChatSenderBody, textLimits } from '@svc/types';
import { AUDIT_SOURCES, auditFilterOf, auditHref } from '../app/routes/moderation/audit-sources.js';
import { LIMITS, parseCommand } from '../app/routes/moderation/commands.js';

const form = (fields: Record<string, string>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  return f;
};

describe('parseCommand', () => {
  it('reads the limits from the contract', () => {
    expect(LIMITS.appReason).toBe(textLimits(ModerationReasonBody.shape.reason).maxLength);
    expect(LIMITS.siteReason).toBe(textLimits(HideSiteBody.shape.reason).maxLength);
    expect(LIMITS.muteMinutes).toBe(MuteChatSenderBody.shape.minutes.maxValue);
  });

  it('restore and block need a reason, trimmed, within the limit', () => {
    expect(parseCommand(form({ intent: 'restore', reason: '  false alarm ' }))).toEqual({
      ok: true,
      command: { intent: 'restore', reason: 'false alarm' },
    });
    expect(parseCommand(form({ intent: 'block', reason: '   ' }))).toEqual({ ok: false, intent: 'block', problems: { reason: 'required' } });
    expect(parseCommand(form({ intent: 'block' }))).toEqual({ ok: false, intent: 'block', problems: { reason: 'required' } });
    expect(parseCommand(form({ intent: 'restore', reason: 'x'.repeat(LIMITS.appReason + 1) }))).toEqual({
      ok: false,
      intent: 'restore',
      problems: { reason: 'tooLong' },
    });
    expect(parseCommand(form({ intent: 'restore', reason: 'x'.repeat(LIMITS.appReason) })).ok).toBe(true);
  });

  it('dismiss takes an optional reason', () => {
    expect(parseCommand(form({ intent: 'dismiss', reason: ' ' }))).toEqual({ ok: true, command: { intent: 'dismiss' } });
    expect(parseCommand(form({ intent: 'dismiss', reason: 'duplicates' }))).toEqual({
      ok: true,
      command: { intent: 'dismiss', reason: 'duplicates' },
    });
    expect(parseCommand(form({ intent: 'dismiss', reason: 'x'.repeat(LIMITS.appReason + 1) })).ok).toBe(false);
  });

  it('hiding a site needs its id and a reason (at most the site limit); restoring only the id', () => {
    expect(parseCommand(form({ intent: 'hide-site', site_id: ' s1 ', reason: 'scam' }))).toEqual({
      ok: true,
      command: { intent: 'hide-site', siteId: 's1', reason: 'scam' },
    });
    expect(parseCommand(form({ intent: 'hide-site', site_id: '', reason: 'x'.repeat(LIMITS.siteReason + 1) }))).toEqual({
      ok: false,
      intent: 'hide-site',
      problems: { site_id: 'required', reason: 'tooLong' },
    });
    expect(parseCommand(form({ intent: 'restore-site', site_id: 's1', reason: 'ignored' }))).toEqual({
      ok: true,
      command: { intent: 'restore-site', siteId: 's1' },
    });
    expect(parseCommand(form({ intent: 'restore-site', site_id: 'x'.repeat(LIMITS.id + 1) }))).toEqual({
      ok: false,
      intent: 'restore-site',
      problems: { site_id: 'tooLong' },
    });
  });

  it('deleting needs a message id; muting also whole minutes from 1 to the maximum', () => {
    expect(parseCommand(form({ intent: 'delete-message', message_id: 'm1' }))).toEqual({
      ok: true,
      command: { intent: 'delete-message', messageId: 'm1' },
    });
    expect(parseCommand(form({ intent: 'mute-sender', message_id: 'm1', minutes: '60' }))).toEqual({
      ok: true,
      command: { intent: 'mute-sender', messageId: 'm1', minutes: 60 },
    });
    expect(parseCommand(form({ intent: 'mute-sender', message_id: 'm1', minutes: String(LIMITS.muteMinutes) })).ok).toBe(true);
    for (const minutes of ['0', '1.5', '-3', 'abc', String(LIMITS.muteMinutes + 1)]) {
      expect(parseCommand(form({ intent: 'mute-sender', message_id: 'm1', minutes }))).toEqual({
        ok: false,
        intent: 'mute-sender',
        problems: { minutes: 'invalid' },
      });
    }
    expect(parseCommand(form({ intent: 'mute-sender', message_id: '', minutes: '' }))).toEqual({
      ok: false,
      intent: 'mute-sender',
      problems: { message_id: 'required', minutes: 'required' },
    });
  });

  it('refuses an unknown intent', () => {
    expect(parseCommand(form({ intent: 'drop-table' }))).toEqual({ ok: false, intent: null, problems: {} });
    expect(parseCommand(form({}))).toEqual({ ok: false, intent: null, problems: {} });
  });
});

describe('the audit filter', () => {
  const of = (query: string) => auditFilterOf(new URLSearchParams(query));

  it('defaults to the first source, no target, no cursor', () => {
    expect(of('')).toEqual({ source: AUDIT_SOURCES[0] });
    expect(of('source=nope&target_type=galaxy')).toEqual({ source: AUDIT_SOURCES[0] });
  });

  it('keeps a known target type and id; an id alone takes the only target type', () => {
    expect(of('source=apps&target_type=app&target_id=abc&cursor=c1')).toEqual({
      source: 'apps',
      targetType: 'app',
      targetId: 'abc',
      cursor: 'c1',
    });
    expect(of('target_id=%20abc%20')).toEqual({ source: 'apps', targetType: 'app', targetId: 'abc' });
  });

  it('reads the sites and chat logs with their own target types', () => {
    expect(AUDIT_SOURCES).toEqual(['apps', 'sites', 'chat']);
    expect(of('source=sites&target_id=s1')).toEqual({ source: 'sites', targetType: 'site', targetId: 's1' });
    expect(of('source=sites&target_type=app')).toEqual({ source: 'sites' });
    expect(of('source=chat&target_type=sender&target_id=user:u1')).toEqual({ source: 'chat', targetType: 'sender', targetId: 'user:u1' });
    // Two target types: an id alone says nothing about which, so it is dropped.
    expect(of('source=chat&target_id=m1')).toEqual({ source: 'chat' });
    expect(auditHref({ source: 'chat', targetType: 'message', targetId: 'm1' })).toBe('/moderation/audit?source=chat&target_type=message&target_id=m1');
  });

  it('drops what the API would refuse (an over-long id or cursor)', () => {
    expect(of(`target_type=app&target_id=${'x'.repeat(201)}&cursor=${'c'.repeat(41)}`)).toEqual({ source: 'apps', targetType: 'app' });
  });

  it('writes links that read back as the same filter', () => {
    const filter = { source: 'apps' as const, targetType: 'app', targetId: 'a b' };
    expect(auditHref({ source: 'apps' })).toBe('/moderation/audit');
    const href = auditHref(filter, 'next-1');
    expect(href).toBe('/moderation/audit?target_type=app&target_id=a+b&cursor=next-1');
    expect(of(href.split('?')[1]!)).toEqual({ ...filter, cursor: 'next-1' });
  });
});
