// svc sites …: the site-sharing interface's sites (/api/sites).
import type { Command } from 'commander';
import { SITE_TAGS, SiteListQuery, SubmitSiteBody, type Site } from '@svc/types';
import type { Context } from '../context.js';
import { CommandFailed } from '../exit-codes.js';
import { findSiteByUrl, isSiteId } from '../site-lookup.js';
import { renderRecord, renderTable, type Column } from '../table.js';
import { integer, parseOrUsage } from '../validate.js';

const COLUMNS: Column<Site>[] = [
  { header: 'ID', value: (s) => s.id },
  { header: 'TITLE', value: (s) => s.title, max: 32 },
  { header: 'DOMAIN', value: (s) => s.domain, max: 28 },
  { header: 'TAGS', value: (s) => s.tags },
  { header: 'HOT', value: (s) => s.hot_score.toFixed(2), align: 'right' },
  { header: 'BOOSTS', value: (s) => s.boost_count, align: 'right' },
  { header: 'CLICKS', value: (s) => s.click_count, align: 'right' },
];

const siteRecord = (site: Site) => renderRecord(Object.entries(site));

export function registerSites(program: Command, ctx: Context): void {
  const sites = program
    .command('sites')
    .description('shared sites: submit, list, look up, boost, claim');

  sites
    .command('submit')
    .description(
      'submit a site URL (its title, description and tags are fetched in the background)',
    )
    .argument('<url>', 'the site address')
    .option('--captcha-token <token>', 'CAPTCHA token, when the server requires one')
    .action(async (url: string, opts) => {
      const body = parseOrUsage(SubmitSiteBody, { url, captchaToken: opts.captchaToken }, 'site');
      const out = await ctx.client().sites.submit(body);
      ctx.print(out, () =>
        out.isNew
          ? `new site ${out.site.id}: ${out.site.url}`
          : `known site ${out.site.id}: ${out.site.url} (submitted ${out.site.submit_count} times)`,
      );
    });

  sites
    .command('list')
    .description('list sites, trending first (or --sort recent); --mine for your submissions')
    .option('-q, --search <text>', 'keyword search over title, description, URL and tags')
    .option('--tag <tag>', `one of: ${SITE_TAGS.join(' ')}`)
    .option('--sort <order>', 'hot (default) or recent')
    .option('--page <n>', 'page number, 60 sites per page', integer('--page'))
    .option('--mine', 'your submissions (needs svc login)')
    .action(async (opts) => {
      const client = ctx.client();
      if (opts.mine) {
        const out = await client.sites.mySubmissions();
        ctx.print(out, () => (out.sites.length ? renderTable(out.sites, COLUMNS) : 'no sites'));
        return;
      }
      const query = parseOrUsage(
        SiteListQuery,
        { search: opts.search, tag: opts.tag, sort: opts.sort, page: opts.page },
        'options',
      );
      const out = await client.sites.list(query);
      ctx.print(out, () =>
        out.sites.length
          ? `${renderTable(out.sites, COLUMNS)}\n\npage ${out.page}, ${out.total} sites${out.hasMore ? ' (more: --page ' + (out.page + 1) + ')' : ''}`
          : 'no sites',
      );
    });

  sites
    .command('get')
    .description('show one site, by its id (GET /api/sites/{id}) or found by its URL')
    .argument('<id|url>', 'the site id, or the site address as submitted')
    .action(async (idOrUrl: string) => {
      if (isSiteId(idOrUrl)) {
        const out = await ctx.client().sites.get(idOrUrl);
        ctx.print(out, () => siteRecord(out.site));
        return;
      }
      const site = await findSiteByUrl(ctx.client(), idOrUrl);
      if (!site) throw new CommandFailed(`no site with the URL ${idOrUrl}`);
      ctx.print({ site }, () => siteRecord(site));
    });

  sites
    .command('boost')
    .description('boost a site in the trending ranking (1 a day, 3 when logged in)')
    .argument('<id>', 'the site id')
    .action(async (id: string) => {
      const out = await ctx.client().sites.boost(id);
      ctx.print(
        out,
        () =>
          `boosted ${out.site.id} (${out.site.boost_count} boosts); ${out.credits} boosts left today`,
      );
    });

  sites
    .command('claim')
    .description('claim a site: its <head> must hold <meta name="svc-verify" content="SITE_ID">')
    .argument('<id>', 'the site id')
    .action(async (id: string) => {
      const out = await ctx.client().sites.claim(id);
      ctx.print(out, () => `claimed ${out.site.id} (${out.site.url})`);
    });
}
