// /me/submissions: the sites the reader shared, newest first (the API answers them all at
// once, so there is no paging), each linking to its page on svc and to the site itself.
import type { Route } from './+types/submissions';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useRootData } from '../../lib/root-data';
import { accountMeta } from './account-meta';
import { loaderFailure, requireUser } from './account.server';
import { AccountNav, formatDate, isWebUrl } from './components';
import { UserText } from '../../components/user-text';
import css from './account.css?url';

export const links: Route.LinksFunction = () => [{ rel: 'stylesheet', href: css }];

export function meta({ matches }: Route.MetaArgs) {
  return accountMeta(matches, 'submissions.title');
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const { api } = await requireUser(request, context);
  try {
    const { sites } = await api.sites.mySubmissions();
    return { sites };
  } catch (err) {
    return loaderFailure(request, err);
  }
}

export default function SubmissionsPage({ loaderData }: Route.ComponentProps) {
  const { sites } = loaderData;
  const { t } = useTranslation('account');
  const { t: tc } = useTranslation('common');
  const lang = useRootData()?.lang ?? 'en';
  return (
    <section className="account-page">
      <AccountNav />
      <h1>{t('submissions.title')}</h1>
      {sites.length === 0 ? (
        <div className="card account-empty">
          <p>{t('submissions.empty')}</p>
          <p>
            <Link to="/">{t('submissions.share')}</Link>
          </p>
        </div>
      ) : (
        <ul className="account-list">
          {sites.map((site) => (
            <li key={site.id} className="card account-item">
              <div className="account-item-main">
                {site.favicon_url && isWebUrl(site.favicon_url) && (
                  <img className="account-favicon" src={site.favicon_url} alt="" width={24} height={24} loading="lazy" />
                )}
                <div>
                  <h2 className="account-item-title" dir="auto">
                    <Link to={`/site/${encodeURIComponent(site.id)}`}>{site.title || site.domain}</Link>
                  </h2>
                  {isWebUrl(site.url) && (
                    <p className="account-item-url">
                      <a href={site.url} rel="noopener noreferrer nofollow" target="_blank">
                        <UserText>{site.domain}</UserText>
                        <span className="visually-hidden"> {t('opensInNewTab')}</span>
                      </a>
                    </p>
                  )}
                  {site.tags.length > 0 && (
                    <ul className="account-tags" aria-label={t('submissions.tags')}>
                      {site.tags.map((tag) => (
                        <li key={tag}>{tc(`tags.${tag}`)}</li>
                      ))}
                    </ul>
                  )}
                  <p className="hint">{t('submissions.sharedOn', { date: formatDate(site.first_submitted_at, lang) })}</p>
                </div>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
