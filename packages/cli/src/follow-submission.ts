// `svc sites submit --wait`: submit a site and follow its processing on the real-time
// channel until it is tagged, or until the deadline.
//
// The socket opens before the submit is sent, so no event of the site can pass unseen
// however fast the worker is; events that arrive before the submit's answer (which names
// the site) are held, then matched. Reconnections resume after the last event seen (the
// client's `last_event_id`); when the channel cannot resume, the site is read again.
import type { SubmitSiteInput, SvcClient } from '@svc/client';
import type { SiteUpdatePayload } from '@svc/types';
import { CommandFailed } from './exit-codes.js';
import { SubmissionProgress, type Step } from './submission-progress.js';

/** Consecutive failed connections after which the channel counts as unreachable. */
export const MAX_CONNECT_ATTEMPTS = 5;

export interface FollowOptions {
  timeoutMs: number;
  /** Each step, as it happens; the last one is `done` or `timeout`. */
  onStep(step: Step): void;
  /** Reconnections and re-reads, for stderr. */
  note(text: string): void;
}

/**
 * Resolves with the last step (`done` or `timeout`). Rejects with the submit's ApiError or
 * NetworkError, or with CommandFailed when the channel cannot be opened (nothing was
 * submitted then) or closes for good.
 */
export function submitAndFollow(
  client: SvcClient,
  body: SubmitSiteInput,
  options: FollowOptions,
): Promise<Step> {
  return new Promise<Step>((resolve, reject) => {
    let phase: 'connecting' | 'submitting' | 'following' = 'connecting';
    let progress: SubmissionProgress | undefined;
    /** site_update payloads that arrived before the submit's answer. */
    const early: SiteUpdatePayload[] = [];
    let rereadWanted = false;
    let settled = false;

    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sub.close();
      finish();
    };

    const emit = (steps: Step[]) => {
      for (const step of steps) {
        if (settled) return;
        options.onStep(step);
        if (step.step === 'done') settle(() => resolve(step));
      }
    };

    const reread = () => {
      if (!progress || settled) return;
      options.note('events may have been missed while disconnected; reading the site again');
      client.sites.get(progress.site.id).then(
        (out) => progress && emit(progress.reread(out.site)),
        (err: unknown) => options.note(`could not read the site again: ${String(err)}`),
      );
    };

    const submit = () => {
      phase = 'submitting';
      client.sites.submit(body).then(
        (out) => {
          if (settled) return;
          phase = 'following';
          progress = new SubmissionProgress(out);
          emit(progress.start());
          for (const update of early.splice(0)) emit(progress.apply(update));
          if (rereadWanted) reread();
        },
        (err: unknown) => settle(() => reject(err)),
      );
    };

    const timer = setTimeout(() => {
      if (phase === 'connecting') {
        settle(() =>
          reject(
            new CommandFailed(
              `the real-time channel did not open within ${options.timeoutMs / 1000} s; nothing was submitted`,
            ),
          ),
        );
        return;
      }
      const step: Step = { step: 'timeout', site: progress?.site ?? null };
      options.onStep(step);
      settle(() => resolve(step));
    }, options.timeoutMs);

    const sub = client.subscribe({
      events: ['site_update'],
      maxAttempts: MAX_CONNECT_ATTEMPTS,
      onOpen: ({ reconnected }) => {
        if (!reconnected) submit();
        else options.note('reconnected');
      },
      onEvent: (e) => {
        if (e.event !== 'site_update') return;
        if (progress) emit(progress.apply(e.payload));
        else early.push(e.payload);
      },
      onResync: () => {
        if (progress) reread();
        else rereadWanted = true;
      },
      onReconnecting: ({ attempt, delayMs, code }) =>
        options.note(
          `real-time channel closed (${code}); reconnecting in ${delayMs} ms (attempt ${attempt})`,
        ),
    });

    sub.closed.then(({ code, reason }) => {
      const why = `${code}${reason ? ` ${reason}` : ''}`;
      settle(() =>
        reject(
          new CommandFailed(
            phase === 'connecting'
              ? `cannot open the real-time channel (${why}); nothing was submitted`
              : `the real-time channel closed (${why}) before the site was processed`,
          ),
        ),
      );
    });
  });
}
