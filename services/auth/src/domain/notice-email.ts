// The e-mail an app's author gets when the app is blocked or restored: pure
// rendering of a notify-email job. The app name and the reasons come from users, so the HTML
// escapes them. Reporters are never named: a block by reports carries only their count per
// reason (app-store summarises them before the job is written).
import type { NotifyEmailJob } from '@svc/types';

export interface EmailMessage {
  subject: string;
  text: string;
  html: string;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function appNoticeEmail(job: NotifyEmailJob): EmailMessage {
  const { name, slug } = job.app;
  if (job.template === 'app_blocked') {
    const why =
      job.by === 'reports'
        ? `It was blocked automatically after reports from users (${job.reason_summary}).`
        : `A moderator blocked it${job.reason_summary ? `: ${job.reason_summary}` : '.'}`;
    const appeal = `You may appeal this block once, in at most 1,000 characters: run \`svc apps appeal ${slug} --text "..."\`, or POST /api/v1/me/apps/${slug}/appeal with {"text": "..."}. A moderator will read it. GET /api/v1/me/apps shows the block and your appeal.`;
    return {
      subject: `Your app "${name}" was blocked`,
      text: `Your app "${name}" (${slug}) was blocked on ${job.at} and no longer appears in the store.\n\n${why}\n\n${appeal}`,
      html: `<p>Your app <strong>${escapeHtml(name)}</strong> (${escapeHtml(slug)}) was blocked on ${escapeHtml(job.at)} and no longer appears in the store.</p><p>${escapeHtml(why)}</p><p>${escapeHtml(appeal)}</p>`,
    };
  }
  const note = job.reason_summary ? `The moderator's note: ${job.reason_summary}` : '';
  return {
    subject: `Your app "${name}" was restored`,
    text: `A moderator restored your app "${name}" (${slug}) on ${job.at}: it appears in the store again.${note ? `\n\n${note}` : ''}`,
    html: `<p>A moderator restored your app <strong>${escapeHtml(name)}</strong> (${escapeHtml(slug)}) on ${escapeHtml(job.at)}: it appears in the store again.</p>${note ? `<p>${escapeHtml(note)}</p>` : ''}`,
  };
}
