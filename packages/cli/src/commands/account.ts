// svc account …: the logged-in user's own account (the session of `svc login`; an API key
// belongs to an app, not to a person, and cannot stand in for it).
import type { Command } from 'commander';
import { VerificationCode } from '@svc/types';
import type { Context } from '../context.js';
import { CommandFailed } from '../exit-codes.js';
import { createPrompter } from '../prompt.js';
import { forgetSession } from '../session-store.js';
import { parseOrUsage } from '../validate.js';

export function registerAccount(program: Command, ctx: Context): void {
  const account = program
    .command('account')
    .description('your account: the session of svc login');

  account
    .command('export')
    .description(
      'everything the platform holds about you, one section per service, as JSON on stdout (svc account export > me.json; 3 an hour)',
    )
    .action(async () => {
      const client = ctx.client();
      if (client.sessionToken === undefined)
        throw new CommandFailed(
          `not logged in to ${client.baseUrl}: run \`svc login\` first (an API key cannot export an account)`,
        );
      // The document itself, --json or not: it is what the command is for.
      const exported = await client.auth.exportData();
      ctx.io.stdout.write(`${JSON.stringify(exported, null, 2)}\n`);
    });

  account
    .command('delete')
    .description(
      "delete your account for good: a code is mailed to your address, and typing it confirms (your apps are withdrawn, your bookmarks, boosts and installs deleted, your chat messages kept as a deleted user's)",
    )
    .action(async () => {
      const client = ctx.client();
      if (client.sessionToken === undefined)
        throw new CommandFailed(`not logged in to ${client.baseUrl}: run \`svc login\` first`);
      const { user } = await client.auth.me();
      const prompter = createPrompter(ctx.io);
      try {
        await client.auth.sendCode(user.email);
        const code = parseOrUsage(
          VerificationCode,
          await prompter.ask(
            `This deletes the account ${user.username} (${user.email}) on ${client.baseUrl} for good.\n` +
              `To confirm, type the 6-digit code just sent to ${user.email}: `,
          ),
          'code',
        );
        await client.auth.deleteAccount(code);
      } finally {
        prompter.close();
      }
      forgetSession(client.baseUrl, ctx.env);
      ctx.print(
        { deleted: true },
        () => `deleted the account ${user.username}; its data is being removed from every service`,
      );
    });
}
