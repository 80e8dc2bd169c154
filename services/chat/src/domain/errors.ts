// chat's own error messages (the shared ones live in @svc/types ERROR_MESSAGES).
export { HttpError } from '@svc/service-kit';

export const ERROR_MESSAGES_FOR_CHAT = {
  messageNotFound: 'Message not found',
  alreadyLiked: 'Already liked',
  /** a system message, or one whose sender deleted their account */
  noSender: 'This message has no sender to mute',
  mutedUntil: (until: Date) => `You are muted until ${until.toISOString()}`,
} as const;
