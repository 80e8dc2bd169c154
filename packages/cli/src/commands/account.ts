// svc account …: the logged-in user's own account (the session of `svc login`; an API key
// belongs to an app, not to a person, and cannot stand in for it).
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { CommandFailed } from '../exit-codes.js';

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
}
