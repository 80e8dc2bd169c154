// "Your data" on /me: a plain link to GET /api/auth/export with `download`, so the browser
// saves the file under the name the API gives it, with or without JavaScript
// (docs/decisions/034-data-export.md).
import { useTranslation } from 'react-i18next';
import { DATA_EXPORT_PATH, EXPORTS_PER_HOUR } from '@svc/types/constants';

export function DataExportSection() {
  const { t } = useTranslation('account');
  return (
    <section aria-labelledby="data-export-heading">
      <h2 id="data-export-heading">{t('dataExport.title')}</h2>
      <p>{t('dataExport.intro')}</p>
      <p>
        <a className="button secondary" href={DATA_EXPORT_PATH} download aria-describedby="data-export-limit">
          {t('dataExport.download')}
        </a>
      </p>
      <p id="data-export-limit" className="hint">
        {t('dataExport.limit', { max: EXPORTS_PER_HOUR })}
      </p>
    </section>
  );
}
