// Exit codes a CI step can rely on.
export const EXIT = {
  ok: 0,
  /** The API answered an error, or could not be reached. */
  api: 1,
  /** The command line was wrong: unknown command, bad flag, missing argument, invalid manifest. */
  usage: 2,
} as const;

/** A mistake in how svc was called; exits 2 with the message on stderr. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A failure that is not an HTTP error (e.g. a site not found by URL); exits 1. */
export class CommandFailed extends Error {
  override name = 'CommandFailed';
}
