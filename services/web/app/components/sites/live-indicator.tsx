// "Live" / "Reconnecting…": the state of the page's real-time connection, announced politely.
import { useTranslation } from 'react-i18next';
import { useLiveStatus } from '../../lib/live';

export function LiveIndicator() {
  const { t } = useTranslation('common');
  const status = useLiveStatus();
  const label = status === 'open' ? t('ui.live') : status === 'off' ? '' : t('ui.reconnecting');
  return (
    <p className={`live-indicator live-${status}`} aria-live="polite" role="status">
      {label ? (
        <>
          <span className="live-dot" aria-hidden="true" />
          {label}
        </>
      ) : null}
    </p>
  );
}
