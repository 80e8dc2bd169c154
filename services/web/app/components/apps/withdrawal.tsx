// Withdrawing one's own app from the developer dashboard (docs/decisions/033-withdraw-an-app.md):
// "Withdraw" on a live app, and for a withdrawn one its dates and "Delete for good". Each is
// a second step behind a disclosure (<details>), and a plain POST to the page's action, so
// both work before (or without) JavaScript; with it they are fetchers.
import type { MyApp } from '@svc/types';
import { APP_WITHDRAWAL_RETENTION_DAYS } from '@svc/types/constants';
import { useTranslation } from 'react-i18next';
import { useActionData, useFetcher } from 'react-router';
import { When } from '../when';
import { withUserText } from '../user-text';
import { describeFailure, type Failure } from './errors';

/** What the withdrawal forms' posts left for the page (serialisable action data). */
export type WithdrawActionResult =
  | { intent: 'withdraw'; ok: true }
  | { intent: 'withdraw' | 'delete-for-good'; ok: false; failure: Failure };

/** The failure of the last post of `intent`: the fetcher's (JavaScript) or the route's. */
function useFailure(intent: WithdrawActionResult['intent'], fetcherData: unknown): Failure | undefined {
  const routeResult = useActionData<{ intent?: string }>();
  const latest = (fetcherData ?? routeResult) as WithdrawActionResult | undefined;
  return latest && latest.intent === intent && !latest.ok ? latest.failure : undefined;
}

/** The second step behind a disclosure: the question, then the one button that posts `intent`. */
function ConfirmStep(props: {
  app: MyApp;
  intent: WithdrawActionResult['intent'];
  open: string;
  confirm: string;
  yes: string;
}) {
  const { t } = useTranslation('apps');
  const fetcher = useFetcher<WithdrawActionResult>();
  const failure = useFailure(props.intent, fetcher.data);
  return (
    <>
      <details className="withdraw">
        <summary>{t(props.open)}</summary>
        <fetcher.Form method="post">
          <p>{withUserText(t, props.confirm, { name: props.app.name })}</p>
          <input type="hidden" name="intent" value={props.intent} />
          <button type="submit" className="danger" disabled={fetcher.state !== 'idle'}>
            {withUserText(t, props.yes, { name: props.app.name })}
          </button>
        </fetcher.Form>
      </details>
      {failure ? (
        <p role="alert" className="error-text">
          {describeFailure(failure, t)}
        </p>
      ) : null}
    </>
  );
}

/** A live app (listed or blocked): what withdrawing does, then the confirmation. */
export function WithdrawPanel({ app }: { app: MyApp }) {
  const { t } = useTranslation('apps');
  return (
    <section aria-labelledby="withdraw-title" className="card withdraw-panel" data-testid="withdraw-panel">
      <h2 id="withdraw-title">{t('withdraw.title')}</h2>
      <p className="hint">{t('withdraw.hint', { days: APP_WITHDRAWAL_RETENTION_DAYS })}</p>
      <ConfirmStep
        app={app}
        intent="withdraw"
        open="withdraw.open"
        confirm="withdraw.confirm"
        yes="withdraw.yes"
      />
    </section>
  );
}

/** A withdrawn app: when, when it goes for good, and deleting it for good now. */
export function WithdrawnPanel({ app }: { app: MyApp }) {
  const { t } = useTranslation('apps');
  return (
    <section aria-labelledby="withdrawn-title" className="card withdrawn-panel" data-testid="withdrawn-panel">
      <h2 id="withdrawn-title">{t('withdraw.withdrawnTitle')}</h2>
      <dl className="block-facts">
        <dt>{t('withdraw.withdrawnAt')}</dt>
        <dd>{app.withdrawn_at ? <When iso={app.withdrawn_at} /> : '—'}</dd>
        <dt>{t('withdraw.purgeAt')}</dt>
        <dd>{app.purge_at ? <When iso={app.purge_at} /> : '—'}</dd>
      </dl>
      <p className="hint">{t('withdraw.withdrawnHint')}</p>
      <ConfirmStep
        app={app}
        intent="delete-for-good"
        open="withdraw.deleteOpen"
        confirm="withdraw.deleteConfirm"
        yes="withdraw.deleteYes"
      />
    </section>
  );
}
