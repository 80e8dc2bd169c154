// svc login | logout [--all] | whoami: the email-code session, kept in the user's config folder.
import type { Command } from 'commander';
import { ApiError } from '@svc/client';
import { Email, VerificationCode } from '@svc/types';
import type { Context } from '../context.js';
import { CommandFailed } from '../exit-codes.js';
import { createPrompter } from '../prompt.js';
import { forgetSession, saveSession } from '../session-store.js';
import { parseOrUsage } from '../validate.js';

export function registerLogin(program: Command, ctx: Context): void {
  program
    .command('login')
    .description('log in with an email code; the session is kept in ~/.config/svc (mode 0600)')
    .option('--email <email>', 'your email address (asked for when not given)')
    .action(async (opts: { email?: string }) => {
      const client = ctx.client();
      const prompter = createPrompter(ctx.io);
      try {
        const email = parseOrUsage(Email, opts.email ?? (await prompter.ask('Email: ')), 'email');
        await client.auth.sendCode(email);
        const code = parseOrUsage(
          VerificationCode,
          await prompter.ask(`A 6-digit code was sent to ${email}. Code: `),
          'code',
        );
        const out = await client.auth.verify(email, code);
        if (!out.sessionToken)
          throw new CommandFailed('the server answered without a session cookie');
        const file = saveSession(
          client.baseUrl,
          { token: out.sessionToken, user: out.user, saved_at: new Date().toISOString() },
          ctx.env,
        );
        ctx.print(
          { user: out.user, base_url: client.baseUrl, session_file: file },
          () =>
            `logged in to ${client.baseUrl} as ${out.user.username} (${out.user.email}); session saved in ${file}`,
        );
      } finally {
        prompter.close();
      }
    });

  program
    .command('logout')
    .description('end the session on the server and forget it here')
    .option('--all', 'sign out everywhere: end every session of your account, on every device')
    .action(async (opts: { all?: boolean }) => {
      if (opts.all) return logoutEverywhere(ctx);
      const client = ctx.client();
      const had = client.sessionToken !== undefined;
      if (had) await client.auth.logout();
      forgetSession(client.baseUrl, ctx.env);
      ctx.print({ logged_out: had }, () =>
        had ? `logged out of ${client.baseUrl}` : 'not logged in',
      );
    });

  program
    .command('whoami')
    .description('who the API sees: the API key (SVC_API_KEY) or the stored session')
    .action(async () => {
      const client = ctx.client();
      const out = await client.me.get();
      const via = client.apiKey ? 'API key' : 'session';
      ctx.print(
        { ...out, via: client.apiKey ? 'api-key' : 'session' },
        () =>
          `${out.user.display_name} <${out.user.email}> (user ${out.user.id}, via ${via}, ${client.baseUrl})`,
      );
    });
}

/**
 * `svc logout --all`: needs the stored session (the API ends the sessions of the account it
 * names). One the API no longer accepts is forgotten here too, and said so.
 */
async function logoutEverywhere(ctx: Context): Promise<void> {
  const client = ctx.client();
  if (client.sessionToken === undefined)
    throw new CommandFailed('not logged in: `svc login` first, then `svc logout --all`');
  try {
    await client.auth.logoutAll();
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 401)) throw err;
    forgetSession(client.baseUrl, ctx.env);
    throw new CommandFailed(
      'the stored session has already ended (forgotten here); `svc login`, then `svc logout --all` again',
    );
  }
  forgetSession(client.baseUrl, ctx.env);
  ctx.print(
    { logged_out: true, everywhere: true },
    () => `signed out of every session of your account on ${client.baseUrl}`,
  );
}
