// /moderation/tools: acting on sites and chat by id — hide a site (with a reason) or show it
// again, delete a chat message (every open chat drops it) or mute its sender for some
// minutes. Plain POST forms to this route's action (they work without JavaScript); with
// JavaScript each is a fetcher and keeps its own outcome.
import { useTranslation } from 'react-i18next';
import { useActionData, useFetcher } from 'react-router';
import type { Route } from './+types/tools';
import { LIMITS, type Field, type Intent } from './commands';
import { userTextField } from '../../components/user-text';
import { ModerationNav, moderationMeta, Outcome, useFieldError } from './components';
import { moderationAction, requireModerator, type ActionResult } from './moderation.server';
import css from './moderation.css?url';

export const links: Route.LinksFunction = () => [{ rel: 'stylesheet', href: css }];

export function meta({ matches }: Route.MetaArgs) {
  return moderationMeta(matches, 'tools.title');
}

export async function loader({ request, context }: Route.LoaderArgs) {
  await requireModerator(request, context);
  return { limits: LIMITS };
}

export async function action({ request, context }: Route.ActionArgs): Promise<ActionResult> {
  return moderationAction(request, context);
}

type Limits = typeof LIMITS;

interface FieldSpec {
  name: Field;
  kind: 'id' | 'reason' | 'minutes';
  required: boolean;
}

interface ToolSpec {
  intent: Intent;
  fields: FieldSpec[];
  danger?: boolean;
}

const TOOLS: Record<'sites' | 'chat', ToolSpec[]> = {
  sites: [
    {
      intent: 'hide-site',
      danger: true,
      fields: [
        { name: 'site_id', kind: 'id', required: true },
        { name: 'reason', kind: 'reason', required: true },
      ],
    },
    { intent: 'restore-site', fields: [{ name: 'site_id', kind: 'id', required: true }] },
  ],
  chat: [
    { intent: 'delete-message', danger: true, fields: [{ name: 'message_id', kind: 'id', required: true }] },
    {
      intent: 'mute-sender',
      fields: [
        { name: 'message_id', kind: 'id', required: true },
        { name: 'minutes', kind: 'minutes', required: true },
      ],
    },
  ],
};

function ToolField({ spec, tool, limits, result }: { spec: FieldSpec; tool: Intent; limits: Limits; result: ActionResult | undefined }) {
  const { t } = useTranslation('moderation');
  const error = useFieldError(result, spec.name);
  const id = `${tool}-${spec.name}`;
  const hintId = `${id}-hint`;
  const described = [spec.kind === 'minutes' ? hintId : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    name: spec.name,
    required: spec.required,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': described,
  } as const;
  return (
    <div className="field">
      <label htmlFor={id}>{t(`tools.fields.${spec.name}`)}</label>
      {spec.kind === 'reason' ? (
        <textarea {...common} rows={2} {...userTextField(limits.siteReason)} />
      ) : spec.kind === 'minutes' ? (
        <input {...common} type="number" inputMode="numeric" min={1} max={limits.muteMinutes} step={1} defaultValue={60} />
      ) : (
        <input {...common} type="text" maxLength={limits.id} spellCheck={false} autoComplete="off" />
      )}
      {spec.kind === 'minutes' ? (
        <p id={hintId} className="hint">
          {t('tools.minutesHint', { max: limits.muteMinutes })}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="error-text">
          {error}
        </p>
      ) : null}
    </div>
  );
}

function Tool({ spec, limits }: { spec: ToolSpec; limits: Limits }) {
  const { t } = useTranslation('moderation');
  const fetcher = useFetcher<ActionResult>();
  // Without JavaScript the form posts the whole page: the answer is the route's action data.
  const routeResult = useActionData<ActionResult>();
  const latest = fetcher.data ?? routeResult;
  const result = latest && latest.intent === spec.intent ? latest : undefined;
  return (
    <fetcher.Form method="post" className="card tool" aria-labelledby={`${spec.intent}-title`}>
      <h3 id={`${spec.intent}-title`}>{t(`tools.${spec.intent}.title`)}</h3>
      <input type="hidden" name="intent" value={spec.intent} />
      {spec.fields.map((f) => (
        <ToolField key={f.name} spec={f} tool={spec.intent} limits={limits} result={result} />
      ))}
      <Outcome result={result} intents={[spec.intent]} />
      <button type="submit" className={spec.danger ? 'danger' : undefined} disabled={fetcher.state !== 'idle'}>
        {fetcher.state !== 'idle' ? t('ui.loading', { ns: 'common' }) : t(`tools.${spec.intent}.submit`)}
      </button>
    </fetcher.Form>
  );
}

export default function ToolsPage({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation('moderation');
  const { limits } = loaderData;
  return (
    <div className="moderation-page">
      <ModerationNav />
      <h1>{t('tools.title')}</h1>
      {(['sites', 'chat'] as const).map((area) => (
        <section key={area} aria-labelledby={`${area}-tools-title`}>
          <h2 id={`${area}-tools-title`}>{t(`tools.${area}Title`)}</h2>
          <p className="hint">{t(`tools.${area}Hint`)}</p>
          <div className="tools">
            {TOOLS[area].map((spec) => (
              <Tool key={spec.intent} spec={spec} limits={limits} />
            ))}
          </div>
        </section>
      ))}
    </div>
  );
}
