// The footer on every page: where developers and agents find the API. Plain links, not
// router links: /docs and the documents are not pages of this router.
import { useTranslation } from 'react-i18next';

export function SiteFooter() {
  const { t } = useTranslation('common');
  return (
    <footer className="site-footer">
      <nav aria-label={t('footer.label')}>
        <ul>
          <li>
            <a href="/docs">{t('footer.apiReference')}</a>
          </li>
          <li>
            <a href="/openapi.json">OpenAPI</a>
          </li>
          <li>
            <a href="/llms.txt">llms.txt</a>
          </li>
        </ul>
      </nav>
    </footer>
  );
}
