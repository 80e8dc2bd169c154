// svc sites …: the site-sharing interface's sites (/api/sites).
import type { Command } from 'commander';
import { SITE_TAGS, SiteListQuery, SubmitSiteBody, type Site } from '@svc/types';
import type { Context } from '../context.js';
import { CommandExit, CommandFailed, EXIT, UsageError } from '../exit-codes.js';
import { submitAndFollow } from '../follow-submission.js';
import { findSiteByUrl, isSiteId } from '../site-lookup.js';
import type { Step } from '../submission-progress.js';
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

/** `--timeout` of `sites submit --wait`, in seconds (a failing page is retried for about 30 s). */
export const WAIT_TIMEOUT_S = { min: 1, max: 3600, default: 120 } as const;

const WAIT_HELP = `
With --wait, one line per step: accepted, metadata fetched, tagged, done (--json: one
{ "step", "site" } object per line). Exit codes: 0 done, 1 the submit or the real-time
channel failed, 3 not done within --timeout (the site stays submitted), 4 done but the
page could not be fetched (listed under its host name, tagged from its URL).`;

function describeAccepted(isNew: boolean, site: Site): string {
  return isNew
    ? `new site ${site.id}: ${site.url}`
    : `known site ${site.id}: ${site.url} (submitted ${site.submit_count} times)`;
}

/** One line per step of `sites submit --wait`, for people. */
export function describeStep(step: Step, elapsedMs: number): string {
  switch (step.step) {
    case 'accepted':
      return `accepted: ${describeAccepted(step.isNew, step.site)}`;
    case 'metadata':
      return `metadata fetched: ${step.site.title}`;
    case 'tagged':
      return `tagged: ${step.site.tags.join(', ')}`;
    case 'done':
      return step.result === 'done'
        ? `done in ${(elapsedMs / 1000).toFixed(1)} s`
        : `done in ${(elapsedMs / 1000).toFixed(1)} s, without metadata (the page could not be fetched)`;
    case 'timeout':
      return `timed out after ${(elapsedMs / 1000).toFixed(1)} s`;
  }
}

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
    .option('--wait', 'follow the processing on the real-time channel until the site is tagged')
    .option(
      '--timeout <seconds>',
      `with --wait: give up after this long, ${WAIT_TIMEOUT_S.min}-${WAIT_TIMEOUT_S.max} (default ${WAIT_TIMEOUT_S.default})`,
      integer('--timeout'),
    )
    .addHelpText('after', WAIT_HELP)
    .action(
      async (url: string, opts: { captchaToken?: string; wait?: boolean; timeout?: number }) => {
        const body = parseOrUsage(SubmitSiteBody, { url, captchaToken: opts.captchaToken }, 'site');
        if (!opts.wait) {
          if (opts.timeout !== undefined) throw new UsageError('--timeout needs --wait');
          const out = await ctx.client().sites.submit(body);
          ctx.print(out, () => describeAccepted(out.isNew, out.site));
          return;
        }
        const timeoutS = opts.timeout ?? WAIT_TIMEOUT_S.default;
        if (timeoutS < WAIT_TIMEOUT_S.min || timeoutS > WAIT_TIMEOUT_S.max) {
          throw new UsageError(
            `--timeout must be ${WAIT_TIMEOUT_S.min}-${WAIT_TIMEOUT_S.max} seconds`,
          );
        }
        const started = Date.now();
        const last = await submitAndFollow(ctx.client(), body, {
          timeoutMs: timeoutS * 1000,
          note: (text) => ctx.note(text),
          onStep: (step) =>
            ctx.io.stdout.write(
              `${ctx.json ? JSON.stringify(step) : describeStep(step, Date.now() - started)}\n`,
            ),
        });
        if (last.step === 'timeout') {
          throw new CommandExit(
            EXIT.timeout,
            last.site
              ? `site ${last.site.id} not processed within ${timeoutS} s; it stays submitted and the work goes on (svc sites get ${last.site.id})`
              : `no answer to the submission within ${timeoutS} s`,
          );
        }
        if (last.step === 'done' && last.result === 'page_unreadable') {
          throw new CommandExit(
            EXIT.pageUnreadable,
            `the page of ${last.site.url} could not be fetched: the site is listed under its host name, tagged from its URL`,
          );
        }
      },
    );

  sites
    .command('list')
    .description('list sites, trending first (or --sort recent); --mine for your submissions')
    .option('-q, --search <text>', 'keyword search over title, description, URL and tags')
    .option('--tag <tag>', `one of: ${SITE_TAGS.join(' ')}`)
    .option('--sort <order>', 'hot (default) or recent')
    .option('--page <n>', 'page number, 60 sites per page (up to 166)', integer('--page'))
    .option('--cursor <c>', 'the page after an earlier answer (its next_cursor), at any depth')
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
        { search: opts.search, tag: opts.tag, sort: opts.sort, page: opts.page, cursor: opts.cursor },
        'options',
      );
      const out = await client.sites.list(query);
      ctx.print(out, () =>
        out.sites.length
          ? `${renderTable(out.sites, COLUMNS)}\n\n${out.total_exact ? '' : 'about '}${out.total} sites${out.next_cursor ? ` (more: --cursor ${out.next_cursor})` : ''}`
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
