// svc apps keys …: per-app API keys (docs/decisions/003-app-store-api-keys.md); managed with the author's session.
import type { Command } from 'commander';
import type { ApiKeyListItem } from '@svc/types';
import type { Context } from '../context.js';
import { renderTable } from '../table.js';

export function registerKeys(apps: Command, ctx: Context): void {
  const keys = apps
    .command('keys')
    .description('API keys of an app, for pipelines (needs svc login: a key cannot manage keys)');

  keys
    .command('create')
    .description('create a key; the secret is shown once')
    .argument('<slug>', 'the app slug')
    .action(async (slug: string) => {
      const out = await ctx.client().apps.keys.create(slug);
      ctx.print(out, () =>
        [
          out.key,
          '',
          `id ${out.id}, prefix ${out.prefix}. This is the only time the key is shown:`,
          'store it as a secret (e.g. SVC_API_KEY in your CI settings).',
        ].join('\n'),
      );
    });

  keys
    .command('list')
    .description('list the keys of an app (no secrets)')
    .argument('<slug>', 'the app slug')
    .action(async (slug: string) => {
      const out = await ctx.client().apps.keys.list(slug);
      ctx.print(out, () =>
        out.keys.length
          ? renderTable<ApiKeyListItem>(out.keys, [
              { header: 'ID', value: (k) => k.id },
              { header: 'PREFIX', value: (k) => k.prefix },
              { header: 'CREATED', value: (k) => k.created_at },
              { header: 'LAST USED', value: (k) => k.last_used_at },
              { header: 'REVOKED', value: (k) => k.revoked_at },
            ])
          : 'no keys',
      );
    });

  keys
    .command('revoke')
    .description('revoke a key; it answers 401 from then on')
    .argument('<slug>', 'the app slug')
    .argument('<id>', 'the key id (from svc apps keys list)')
    .action(async (slug: string, id: string) => {
      await ctx.client().apps.keys.revoke(slug, id);
      ctx.print({ revoked: true, id }, () => `revoked key ${id}`);
    });
}
