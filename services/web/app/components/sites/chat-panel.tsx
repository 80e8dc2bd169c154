// The public chat: recent messages (server-rendered), new ones and likes as they happen,
// entrance and system messages in the reader's language, a box to post, translation.
import type { ChatMessage } from '@svc/types';
import { CHAT_MESSAGE_MAX_LENGTH } from '@svc/types/constants';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Form } from 'react-router';
import { browserApi } from '../../lib/api.client';
import { timeFormat } from '../../lib/intl';
import { useLiveEvent } from '../../lib/live';
import { useRootData } from '../../lib/root-data';
import { describeError } from './errors';
import { messageText } from './format';
import { useHydrated } from '../../lib/use-hydrated';
import { userTextField } from '../user-text';

const KEEP = 100;

function ChatLine({
  m,
  likes,
  onLike,
}: {
  m: ChatMessage;
  likes: number;
  onLike: (id: string) => Promise<string | undefined>;
}) {
  const { t } = useTranslation('sites');
  const root = useRootData();
  const lang = root?.lang ?? 'en';
  const [translation, setTranslation] = useState<string | null>(null);
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const hydrated = useHydrated();
  const time = new Date(m.created_at);
  async function translate() {
    setBusy(true);
    setNote('');
    try {
      const res = await browserApi().translate({ text: m.content, targetLang: lang });
      setTranslation(res.translated);
    } catch (err) {
      setNote(describeError(err, t));
    } finally {
      setBusy(false);
    }
  }
  async function like() {
    setNote((await onLike(m.id)) ?? '');
  }
  return (
    <li className={`chat-message chat-${m.type}`} data-message-id={m.id}>
      <div className="chat-meta">
        {m.type === 'chat' ? (
          <span className="chat-sender" dir="auto">
            {m.sender_name}
          </span>
        ) : null}
        {/* UTC in the server's HTML and while hydrating (the same text on both sides), then
            the reader's own time zone. */}
        <time dateTime={m.created_at}>{timeFormat(lang, hydrated ? undefined : 'UTC').format(time)}</time>
      </div>
      <p className="chat-text" dir={m.type === 'chat' ? 'auto' : undefined}>
        {messageText(m, t, lang)}
      </p>
      {translation !== null ? (
        <p className="chat-translation" lang={lang} dir="auto">
          <span className="visually-hidden">{t('chat.translation')}: </span>
          {translation}
        </p>
      ) : null}
      <div className="chat-actions">
        <button type="button" className="link-button chat-like" onClick={() => void like()} disabled={!hydrated}>
          <span aria-hidden="true">♥</span> {t('chat.like')}
          {likes > 0 ? <span className="like-count"> {likes}</span> : null}
        </button>
        {m.type === 'chat' && translation === null ? (
          <button type="button" className="link-button" onClick={() => void translate()} disabled={busy || !hydrated}>
            {busy ? t('common:ui.loading') : t('chat.translate')}
          </button>
        ) : null}
      </div>
      {note ? (
        <p className="error-text chat-note" role="alert">
          {note}
        </p>
      ) : null}
    </li>
  );
}

export function ChatPanel({ initial }: { initial: ChatMessage[] }) {
  const { t } = useTranslation('sites');
  const [live, setLive] = useState<ChatMessage[]>([]);
  /** Totals learnt after the page loaded (like answers and `like` events), by message id. */
  const [likes, setLikes] = useState<Record<string, number>>({});
  /** Messages a moderator deleted since the page loaded (`message_deleted` events). */
  const [deleted, setDeleted] = useState<ReadonlySet<string>>(() => new Set());
  const [text, setText] = useState('');
  const [error, setError] = useState('');
  const [sending, setSending] = useState(false);
  /** My likes whose `like` event has not come back yet: that event must not count twice. */
  const mine = useRef(new Map<string, 'sent' | 'answered'>());

  const messages = useMemo(() => {
    const byId = new Map<string, ChatMessage>();
    for (const m of initial) byId.set(m.id, m);
    // A re-read list (after a reconnect) may know more likes than the live copy, or fewer.
    for (const m of live) byId.set(m.id, { ...m, like_count: Math.max(m.like_count, byId.get(m.id)?.like_count ?? 0) });
    for (const id of deleted) byId.delete(id);
    return [...byId.values()]
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id))
      .slice(-KEEP);
  }, [initial, live, deleted]);

  // The newest message is at the bottom: keep it in view (unless the reader scrolled up).
  const log = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const last = messages[messages.length - 1]?.id;
  useEffect(() => {
    const el = log.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  }, [last]);

  /** The count shown: the server's `like_count` (in the HTML), or a higher total learnt since. */
  const countOf = (m: ChatMessage) => Math.max(m.like_count, likes[m.id] ?? 0);
  /** Raise a message's total (never lower it: answers and events may arrive out of order). */
  const raise = (id: string, total: number) => setLikes((prev) => ({ ...prev, [id]: Math.max(prev[id] ?? 0, total) }));

  const add = (m: ChatMessage) => setLive((prev) => (prev.some((p) => p.id === m.id) ? prev : [...prev, m].slice(-KEEP)));

  useLiveEvent((ev) => {
    if (ev.event === 'new_message') add(ev.payload);
    else if (ev.event === 'message_deleted') {
      const id = ev.payload.id;
      setDeleted((prev) => (prev.has(id) ? prev : new Set(prev).add(id)));
    } else if (ev.event === 'like') {
      const id = ev.payload.messageId;
      // chat sends the new total: take it as it is (my own like's event included).
      if (ev.payload.like_count !== undefined) {
        mine.current.delete(id);
        raise(id, ev.payload.like_count);
        return;
      }
      // Without a total, count one more (unless it is the event of my own answered like).
      const state = mine.current.get(id);
      if (state === 'answered') {
        mine.current.delete(id);
        return;
      }
      if (state === 'sent') mine.current.delete(id);
      const base = messages.find((m) => m.id === id)?.like_count ?? 0;
      setLikes((prev) => ({ ...prev, [id]: Math.max(prev[id] ?? 0, base) + 1 }));
    }
  });

  async function like(id: string): Promise<string | undefined> {
    mine.current.set(id, 'sent');
    try {
      const res = await browserApi().chat.like(id);
      if (mine.current.get(id) === 'sent') mine.current.set(id, 'answered');
      raise(id, res.like_count);
      return undefined;
    } catch (err) {
      mine.current.delete(id);
      if ((err as { status?: number }).status === 409) return t('chat.alreadyLiked');
      return describeError(err, t);
    }
  }

  async function send(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const content = text.trim();
    if (!content || sending) return;
    setSending(true);
    setError('');
    try {
      const res = await browserApi().chat.send(content);
      add(res.message);
      setText('');
    } catch (err) {
      setError(describeError(err, t));
    } finally {
      setSending(false);
    }
  }

  return (
    <section className="chat card" aria-labelledby="chat-heading">
      <h2 id="chat-heading">{t('chat.heading')}</h2>
      {messages.length === 0 ? <p className="hint">{t('chat.empty')}</p> : null}
      <div
        className="chat-log"
        role="log"
        aria-label={t('chat.log')}
        ref={log}
        tabIndex={0}
        onScroll={(e) => {
          const el = e.currentTarget;
          pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
        }}
      >
        <ol>
          {messages.map((m) => (
            <ChatLine key={m.id} m={m} likes={countOf(m)} onLike={like} />
          ))}
        </ol>
      </div>
      <Form method="post" className="chat-form" onSubmit={(e) => void send(e)}>
        <input type="hidden" name="intent" value="chat" />
        <label htmlFor="chat-input">{t('chat.label')}</label>
        <div className="chat-row">
          <input
            id="chat-input"
            name="content"
            type="text"
            {...userTextField(CHAT_MESSAGE_MAX_LENGTH)}
            required
            autoComplete="off"
            value={text}
            onChange={(e) => setText(e.target.value)}
          />
          <button type="submit" disabled={sending}>
            {t('chat.send')}
          </button>
        </div>
        <p className="error-text" aria-live="assertive">
          {error}
        </p>
      </Form>
    </section>
  );
}
